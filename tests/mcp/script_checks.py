"""What the Python client scripts beside this file share: failing with a message, checks,
and a result's text. Stdlib only, so each script's own venv can import it."""

import sys


def checks(who):
    """`fail` and `check` for the script named `who`."""

    def fail(message):
        print(f"{who}: {message}", file=sys.stderr)
        sys.exit(1)

    def check(condition, what, got):
        if not condition:
            fail(f"{what}; got {got!r}")

    return fail, check


def text(result):
    """The text blocks of a tool result, joined by newlines."""
    return "\n".join(block.text for block in result.content if block.type == "text")
