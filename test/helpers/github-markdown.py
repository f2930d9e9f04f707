# GitHub's Markdown parser (cmark-gfm, through the cmarkgfm bindings) and Python's XML parser (expat), for
# test/report/reports-hostile.test.ts. Reads a JSON array of {"kind": "markdown" | "xml", "text": ...} on
# stdin and writes a JSON array: the HTML for markdown (raw HTML kept, so HTML a report lets through shows),
# or for XML every element as [tag, attributes, text], or {"error": ...} when the XML does not parse.
import json
import sys
import xml.etree.ElementTree as ElementTree

import cmarkgfm
from cmarkgfm.cmark import Options


def render(item):
    if item["kind"] == "markdown":
        return cmarkgfm.github_flavored_markdown_to_html(item["text"], options=Options.CMARK_OPT_UNSAFE)
    try:
        root = ElementTree.fromstring(item["text"].encode("utf-8"))
    except ElementTree.ParseError as error:
        return {"error": str(error)}
    return [[e.tag, e.attrib, e.text] for e in root.iter()]


json.dump([render(item) for item in json.load(sys.stdin)], sys.stdout)
