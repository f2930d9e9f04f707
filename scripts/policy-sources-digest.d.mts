export declare const policyRoot: string;
export declare function policySourcesDigest(root?: string): string;
