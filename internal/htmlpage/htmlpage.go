// Package htmlpage holds what gmark's static HTML pages (the report of
// `gmark report`, the trace toolbox's page of `gmark trace plot`) share:
// the style sheet, for the screen at 1280 px and up and for print, and the
// few lines of script that mark a loaded page for automated checks.
//
// A page opens from disk in any browser with no server and no network:
// everything is inline, the figures are files beside it.
package htmlpage

import "html/template"

// Script marks the page, once loaded, for automated checks (the headless
// Chromium test reads them from the DOM) on its root element:
// data-images (the number of images), data-images-loaded (those complete
// and decoded), data-images-missing (the others' sources),
// data-errors (script and resource errors and console.error calls),
// data-scroll-width and data-viewport-width (the document's width and the
// window's: larger means a horizontal scroll bar), data-scroll-height (for
// a screenshot of the whole page), data-ready.
//
// It also opens every <details> before printing, so that a printed page
// holds the full tables the screen shows one click away, and closes them
// again after.
const Script template.JS = `(function () {
  var errors = 0, root = document.documentElement;
  function count() { errors++; root.setAttribute("data-errors", errors); }
  window.addEventListener("error", count, true);
  window.addEventListener("unhandledrejection", count);
  var consoleError = console.error;
  console.error = function () { count(); return consoleError.apply(console, arguments); };
  window.addEventListener("load", function () {
    var imgs = document.images, ok = 0, bad = [];
    for (var i = 0; i < imgs.length; i++) {
      if (imgs[i].complete && imgs[i].naturalWidth > 0) { ok++; } else { bad.push(imgs[i].getAttribute("src")); }
    }
    root.setAttribute("data-images", imgs.length);
    root.setAttribute("data-images-loaded", ok);
    root.setAttribute("data-images-missing", bad.join(" "));
    root.setAttribute("data-errors", errors);
    root.setAttribute("data-scroll-width", root.scrollWidth);
    root.setAttribute("data-viewport-width", root.clientWidth);
    root.setAttribute("data-scroll-height", root.scrollHeight);
    root.setAttribute("data-ready", "1");
  });
  var opened = [];
  window.addEventListener("beforeprint", function () {
    document.querySelectorAll("details:not([open])").forEach(function (d) { d.open = true; opened.push(d); });
  });
  window.addEventListener("afterprint", function () {
    opened.forEach(function (d) { d.open = false; });
    opened = [];
  });
})();`

// Style is the pages' style sheet. The body is at most 1200 px wide, so a
// page fits a 1280 px window; a table that may be wider (many runs'
// columns, long hashes) sits in a div.scroll that scrolls on its own
// instead of widening the page; long code (paths, digests, JSON) breaks
// anywhere, a number never (td, or span.n in a cell of text, td.l or
// td.w), so that 7.5e-5 is not cut at its minus. For
// print: no width limit, smaller type, no scrolling and cells that wrap
// (every column on the paper), headings kept with what follows, figures and table rows not
// split across pages, the contents and links in the text colour.
const Style template.CSS = `
body { font-family: system-ui, -apple-system, "Segoe UI", sans-serif; margin: 2em auto; max-width: 1200px; padding: 0 1em; color: #222; }
h1 { font-size: 1.6em; } h2 { border-bottom: 1px solid #ccc; padding-bottom: .2em; margin-top: 2em; } h3 { margin-top: 1.5em; }
table { border-collapse: collapse; margin: .5em 0 1em; font-size: .9em; }
th, td { border: 1px solid #ddd; padding: .25em .5em; text-align: right; vertical-align: top; }
th { background: #f3f5f8; } td.l, th.l { text-align: left; } th.group { text-align: center; }
td { white-space: nowrap; } td.l, td.w { white-space: normal; } .n { white-space: nowrap; }
code { overflow-wrap: anywhere; } td code.id { overflow-wrap: normal; white-space: nowrap; }
td.long { min-width: 16em; overflow-wrap: anywhere; }
.scroll { max-width: 100%; overflow-x: auto; }
code, pre { font-family: ui-monospace, Menlo, Consolas, monospace; font-size: .85em; }
pre { background: #f6f8fa; padding: .6em; overflow-x: auto; white-space: pre-wrap; word-break: break-all; }
figure { margin: 1.5em 0; } figure img { max-width: 100%; height: auto; border: 1px solid #eee; }
figcaption { font-size: .9em; color: #444; } .note { color: #666; font-size: .9em; }
details { margin: .5em 0 1em; } summary { cursor: pointer; color: #1a5fb4; }
nav.toc { background: #f8f9fb; border: 1px solid #e3e6ea; padding: .4em 1.2em; margin: 1em 0; }
nav.toc h2 { font-size: 1.1em; border: 0; margin: .4em 0; }
nav.toc ol { columns: 4 12em; column-gap: 2em; margin: .2em 0 .5em; padding-left: 1.4em; }
nav.toc ol.figs { columns: 3 20em; font-size: .9em; padding-left: 2.2em; } nav.toc li { break-inside: avoid; }
nav.toc p { margin: .6em 0 .2em; font-weight: 600; }
@media print {
  @page { margin: 1.5cm; }
  body { max-width: none; margin: 0; padding: 0; font-size: 10pt; }
  .scroll { overflow: visible; }
  table { font-size: 7.5pt; } th, td { padding: .15em .3em; }
  td, td code.id { white-space: normal; } td.long { min-width: 0; }
  tr, figure, pre { break-inside: avoid; }
  h2, h3 { break-after: avoid; }
  figure img { max-width: 100%; border: 0; }
  a { color: inherit; text-decoration: none; }
  summary { color: inherit; }
  nav.toc { background: none; }
}
`
