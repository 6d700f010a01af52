"""The OpenAI Agents SDK as a client of toolwright's example server: every tool must come out strict.

Usage: strict_client.py SERVER [ARGS...], e.g. strict_client.py target/debug/examples/mcp_server
       strict_client.py --tools FILE   (a JSON array of tools/list entries, for registries no server serves)

Lists the server's tools over stdio with the official MCP Python SDK, then converts each one
as the Agents SDK does for `Agent(mcp_servers=..., mcp_config={"convert_schemas_to_strict": True})`:
`MCPUtil.to_function_tool(tool, server, convert_schemas_to_strict=True)`. That call never
raises on a schema it cannot make strict: it logs the reason at INFO on the "openai.agents"
logger and returns a tool with `strict_json_schema=False`. This script catches both, prints
every tool that did not come out strict with the reason, and exits 1; on success it prints
one line. Exits 2 when the server cannot be reached or answered within the time limit.
"""

import asyncio
import logging
import os
import sys
import tempfile

# The SDK logs the conversion error's text only when tool data may be logged.
os.environ["OPENAI_AGENTS_DONT_LOG_TOOL_DATA"] = "0"

from importlib.metadata import version  # noqa: E402

from agents import _debug  # noqa: E402
from agents.mcp import MCPServerStdio, MCPUtil  # noqa: E402
from mcp import Client, StdioServerParameters  # noqa: E402
from mcp.client.stdio import stdio_client  # noqa: E402

_debug.DONT_LOG_TOOL_DATA = False

OVERALL_TIMEOUT_S = 60
REQUEST_TIMEOUT_S = 30
STRICT_FAILURE_LOG = "Error converting MCP schema to strict mode"


class Reasons(logging.Handler):
    """Keeps the SDK's strict-conversion failure messages, in order."""

    def __init__(self):
        super().__init__(logging.INFO)
        self.messages = []

    def emit(self, record):
        message = record.getMessage()
        if message.startswith(STRICT_FAILURE_LOG):
            self.messages.append(message[len(STRICT_FAILURE_LOG):].lstrip(": ") or "(no reason logged)")


async def list_all_tools(command, args, errlog):
    server = StdioServerParameters(command=command, args=args)
    tools, cursor = [], None
    # The initialize handshake, as the Agents SDK's own MCP servers do it. The server's
    # stderr goes to errlog, shown only when the tools could not be listed.
    transport = stdio_client(server, errlog=errlog)
    async with Client(transport, mode="legacy", read_timeout_seconds=REQUEST_TIMEOUT_S) as client:
        while True:
            page = await client.list_tools(cursor=cursor)
            tools.extend(page.tools)
            cursor = page.next_cursor
            if not cursor:
                return tools


def convert(tools, command, args):
    # `to_function_tool` reads only the server's configuration (approval, error function,
    # guardrails); this one is never connected: the tools came from the MCP SDK client above.
    sdk_server = MCPServerStdio(params={"command": command, "args": args}, name="toolwright-example")
    logger = logging.getLogger("openai.agents")
    reasons = Reasons()
    logger.addHandler(reasons)
    saved = (logger.level, logger.propagate)
    logger.setLevel(logging.INFO)
    logger.propagate = False
    failures = []
    try:
        for tool in tools:
            before = len(reasons.messages)
            function_tool = MCPUtil.to_function_tool(tool, sdk_server, convert_schemas_to_strict=True)
            if function_tool.strict_json_schema is not True:
                logged = reasons.messages[before:]
                failures.append((tool.name, "; ".join(logged) or "strict_json_schema is False (no reason logged)"))
    finally:
        logger.removeHandler(reasons)
        logger.setLevel(saved[0])
        logger.propagate = saved[1]
    return failures


async def run(command, args, errlog):
    tools = await list_all_tools(command, args, errlog)
    if not tools:
        raise AssertionError("tools/list returned no tools")
    return tools, convert(tools, command, args)


def leaves(error):
    """The exceptions inside (nested) exception groups, such as anyio's task groups raise."""
    if isinstance(error, BaseExceptionGroup):
        return [leaf for inner in error.exceptions for leaf in leaves(inner)]
    return [error]


def report(sdk, tools, failures):
    if failures:
        for name, reason in failures:
            print(f"{name}: not strict: {reason}")
        print(f"{sdk}: {len(failures)} of {len(tools)} tools did not convert to strict function tools")
        return 1
    print(f"{sdk}: all {len(tools)} tools converted to strict function tools")
    return 0


def main(argv):
    if not argv or argv[0] == "--tools" and len(argv) != 2:
        print(__doc__.strip().splitlines()[2], file=sys.stderr)
        return 2
    sdk = f"openai-agents {version('openai-agents')}, mcp {version('mcp')}"
    if argv[0] == "--tools":
        import json

        from mcp.types import Tool

        with open(argv[1], encoding="utf-8") as file:
            tools = [Tool.model_validate(entry) for entry in json.load(file)]
        if not tools:
            print(f"{argv[1]}: no tools", file=sys.stderr)
            return 2
        return report(sdk, tools, convert(tools, sys.executable, []))
    command, args = argv[0], argv[1:]
    with tempfile.TemporaryFile("w+") as errlog:
        try:
            tools, failures = asyncio.run(asyncio.wait_for(run(command, args, errlog), OVERALL_TIMEOUT_S))
        except Exception as error:  # noqa: BLE001 - report any client failure, with the server's stderr
            if isinstance(error, TimeoutError):
                why = f"no answer within {OVERALL_TIMEOUT_S} s"
            else:
                why = "; ".join(f"{type(e).__name__}: {e}" for e in leaves(error))
            errlog.seek(0)
            server_said = errlog.read()[-4000:]
            print(server_said, end="" if server_said.endswith("\n") or not server_said else "\n", file=sys.stderr)
            print(f"{sdk}: could not list the tools of {command}: {why}", file=sys.stderr)
            return 2
    return report(sdk, tools, failures)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
