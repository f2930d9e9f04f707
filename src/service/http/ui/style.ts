// The dashboard's one stylesheet, served as a file (/ui/static/style.css) so the Content-Security-Policy
// allows no inline style or script. Shipped inside the JavaScript, so the npm package needs no asset files.
// Colours meet WCAG AA contrast (4.5:1 and more) on their backgrounds; focus is always visible.
export const STYLESHEET = `
*, *::before, *::after { box-sizing: border-box; }
html { font-family: system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; font-size: 16px; line-height: 1.5; color: #1b1f24; background: #f6f7f9; }
body { margin: 0; }
a { color: #0a4fb3; }
a:hover { color: #06357a; }
:focus-visible { outline: 3px solid #0a4fb3; outline-offset: 2px; }
.skip { position: absolute; left: -9999px; top: 0; background: #fff; padding: .5rem 1rem; }
.skip:focus { left: .5rem; z-index: 10; }
.sr-only { position: absolute; width: 1px; height: 1px; padding: 0; margin: -1px; overflow: hidden; clip: rect(0, 0, 0, 0); white-space: nowrap; border: 0; }
header.top { background: #14213d; color: #fff; padding: .5rem 1rem; display: flex; flex-wrap: wrap; align-items: center; gap: .5rem 1.5rem; }
header.top a, header.top .who { color: #fff; }
header.top :focus-visible { outline-color: #ffd166; }
header.top .brand { font-weight: 700; text-decoration: none; font-size: 1.1rem; }
header.top nav ul { list-style: none; display: flex; flex-wrap: wrap; gap: 1rem; margin: 0; padding: 0; }
header.top .who { margin-left: auto; font-size: .9rem; display: flex; align-items: center; gap: .75rem; flex-wrap: wrap; }
header.top .who button { background: transparent; color: #fff; border: 1px solid #fff; }
main { max-width: 72rem; margin: 0 auto; padding: 1rem; }
h1 { font-size: 1.6rem; margin: .5rem 0 1rem; overflow-wrap: anywhere; }
h2 { font-size: 1.25rem; margin: 1.5rem 0 .5rem; }
nav.tabs ul { list-style: none; display: flex; flex-wrap: wrap; gap: .25rem; margin: 0 0 1rem; padding: 0; border-bottom: 2px solid #d0d5dd; }
nav.tabs a { display: block; padding: .4rem .8rem; text-decoration: none; border-radius: 4px 4px 0 0; }
nav.tabs a[aria-current="page"] { background: #fff; border: 2px solid #d0d5dd; border-bottom-color: #fff; margin-bottom: -2px; color: #1b1f24; font-weight: 600; }
.card { background: #fff; border: 1px solid #d0d5dd; border-radius: 6px; padding: 1rem; margin: 0 0 1rem; }
.table-wrap { overflow-x: auto; background: #fff; border: 1px solid #d0d5dd; border-radius: 6px; margin: 0 0 1rem; }
table { border-collapse: collapse; width: 100%; }
th, td { text-align: left; padding: .5rem .75rem; border-bottom: 1px solid #e4e7ec; vertical-align: top; }
th { background: #eef1f5; font-weight: 600; }
td.addr, td.wrap, .wrap { overflow-wrap: anywhere; word-break: break-word; }
code, pre { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; font-size: .9rem; }
pre { background: #f1f3f6; padding: .75rem; border-radius: 4px; overflow-x: auto; white-space: pre-wrap; overflow-wrap: anywhere; }
.badge { display: inline-block; padding: .05rem .5rem; border-radius: 999px; font-size: .85rem; font-weight: 600; white-space: nowrap; }
.badge.ok { background: #e3f5ea; color: #0f5a2e; }
.badge.warn { background: #fff4d6; color: #5c4200; }
.badge.bad { background: #fde8e8; color: #8a1c1c; }
.badge.muted { background: #eceff3; color: #3d4450; }
.muted { color: #4b5563; }
.notice { border-left: 4px solid #0f5a2e; background: #e3f5ea; padding: .5rem 1rem; margin: 0 0 1rem; }
.error { border-left: 4px solid #8a1c1c; background: #fde8e8; padding: .5rem 1rem; margin: 0 0 1rem; }
.secret { border-left: 4px solid #5c4200; background: #fff4d6; padding: .5rem 1rem; margin: 0 0 1rem; }
form.inline { display: inline; }
form.stack { display: grid; gap: .5rem; max-width: 32rem; }
label { font-weight: 600; }
input[type="text"], input[type="password"], select, textarea { font: inherit; padding: .4rem .5rem; border: 1px solid #6b7280; border-radius: 4px; width: 100%; max-width: 100%; background: #fff; color: #1b1f24; }
textarea { min-height: 4rem; }
button { font: inherit; padding: .4rem .9rem; border-radius: 4px; border: 1px solid #0a4fb3; background: #0a4fb3; color: #fff; cursor: pointer; }
button:hover { background: #06357a; }
button.secondary { background: #fff; color: #0a4fb3; }
button.danger { background: #8a1c1c; border-color: #8a1c1c; }
fieldset { border: 1px solid #d0d5dd; border-radius: 4px; }
.filters { display: flex; flex-wrap: wrap; gap: .75rem; align-items: end; margin: 0 0 1rem; }
.filters > div { display: grid; gap: .25rem; }
.pager { display: flex; gap: 1rem; flex-wrap: wrap; margin: 0 0 1rem; }
ul.diff { list-style: none; padding: 0; margin: 0; }
ul.diff li { padding: .15rem .5rem; border-radius: 3px; margin: .1rem 0; overflow-wrap: anywhere; }
ul.diff .add { background: #e3f5ea; color: #0f5a2e; }
ul.diff .del { background: #fde8e8; color: #8a1c1c; }
ul.diff .chg { background: #fff4d6; color: #5c4200; }
dl.facts { display: grid; grid-template-columns: max-content 1fr; gap: .25rem 1rem; margin: 0; }
dl.facts dt { font-weight: 600; }
dl.facts dd { margin: 0; overflow-wrap: anywhere; }
@media (max-width: 40rem) {
  main { padding: .75rem; }
  dl.facts { grid-template-columns: 1fr; }
  dl.facts dd { margin-bottom: .5rem; }
  table.stack thead { position: absolute; left: -9999px; }
  table.stack tr { display: block; border-bottom: 2px solid #d0d5dd; padding: .25rem 0; }
  table.stack td { display: block; border: 0; padding: .2rem .75rem; }
  table.stack td::before { content: attr(data-label) ": "; font-weight: 600; }
}
`;
