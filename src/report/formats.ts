// The report formats, apart from their renderers (registry.ts), which are loaded only to render.
export const REPORT_FORMATS = ['text', 'json', 'markdown', 'sarif', 'junit'] as const;
export type ReportFormat = (typeof REPORT_FORMATS)[number];
