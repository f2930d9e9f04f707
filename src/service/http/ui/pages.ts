// The dashboard's pages: plain functions from domain values to escaped HTML (html.ts), one module per group.
export * from './keys-page.js';
export * from './layout.js';
export * from './log-pages.js';
export * from './package-pages.js';
