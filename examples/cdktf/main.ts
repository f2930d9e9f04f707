// A CDK Terrain app checked against its package's approved design at synth time. For a CDKTF 0.21 app
// (CDKTF was archived on 2025-12-10), import from 'cdktf' and 'tfgate/cdktf' instead: nothing else changes.
//   Policy source (first that is set): TFGATE_BUNDLE + TFGATE_PUBLIC_KEY (signed bundle, e.g. from
//   `tfgate bundle pull`), TFGATE_PACKAGE + TFGATE_BASE_URL + TFGATE_API_KEY (the service), or
//   TFGATE_DESIGN (a local design file, unsigned: development only). TFGATE_ADVISORY=true warns only.
//   Scenarios (app context, e.g. CDKTF_CONTEXT_JSON='{"auditQueue":true}'): auditQueue,
//   acknowledgeAuditQueue ("<reason>"), retireLedger.
import { App } from 'cdktn';
import { applyConformance, ConformanceAspect } from 'tfgate/cdktn';
import { PlatformStack, StorageStack } from './stacks.js';

async function loadConformance(): Promise<ConformanceAspect> {
  const advisory = process.env.TFGATE_ADVISORY === 'true';
  const { TFGATE_BUNDLE, TFGATE_PUBLIC_KEY, TFGATE_PACKAGE, TFGATE_DESIGN } = process.env;
  if (TFGATE_BUNDLE) {
    return ConformanceAspect.fromBundle(TFGATE_BUNDLE, {
      publicKey: TFGATE_PUBLIC_KEY || undefined,
      advisory,
    });
  }
  // The base URL and the API key come from TFGATE_BASE_URL and TFGATE_API_KEY (a pipeline secret).
  if (TFGATE_PACKAGE) return ConformanceAspect.fromService({ packageId: TFGATE_PACKAGE, advisory });
  if (TFGATE_DESIGN) return ConformanceAspect.fromDesign(TFGATE_DESIGN, { advisory });
  throw Object.assign(new Error('no approved design configured, so the app cannot be checked'), {
    hint: 'set TFGATE_BUNDLE and TFGATE_PUBLIC_KEY, or TFGATE_PACKAGE, or TFGATE_DESIGN=design.yaml',
  });
}

// Loading verifies the bundle and instantiates the policy: async, so it happens before synth.
const conformance = await loadConformance().catch((error: Error & { hint?: string }) => {
  console.error(`tfgate: ${error.message}${error.hint ? `\nhint: ${error.hint}` : ''}`);
  process.exit(1);
});

const app = new App();
const context = (key: string): unknown => app.node.tryGetContext(key);
new PlatformStack(app, 'platform', { retireLedger: context('retireLedger') === true });
new StorageStack(app, 'storage', {
  auditQueue: context('auditQueue') === true,
  acknowledgeAuditQueue:
    typeof context('acknowledgeAuditQueue') === 'string'
      ? String(context('acknowledgeAuditQueue'))
      : undefined,
});

// Not Aspects.of(app).add(...): CDK Terrain (like CDKTF) runs aspects per stack, so an aspect on the app never runs.
applyConformance(app, conformance);
app.synth();
