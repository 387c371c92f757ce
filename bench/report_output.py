"""Where the benchmark scripts (bench/compare.py, bench/images/run.py) put a finished report: the
Markdown text on stdout, and optionally in a Markdown file and the raw results in a JSON file."""

import json


def write_report(text, markdown_out, json_out, document, indent):
    """Prints `text`; writes it to `markdown_out` and `document` as JSON to `json_out` when
    those paths are given (not empty)."""
    print(text)
    if markdown_out:
        with open(markdown_out, "w") as f:
            f.write(text)
    if json_out:
        with open(json_out, "w") as f:
            json.dump(document, f, indent=indent)
