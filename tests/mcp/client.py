"""The official MCP Python SDK as a client of toolwright's example server, over stdio.

Usage: client.py MODE SERVER [ARGS...], where MODE is "legacy" (the initialize handshake)
or "2026-07-28" (stateless requests). Exits non-zero, saying what differed, when the
server does not answer as a client expects. Run by tests/mcp_server.rs.
"""

import asyncio
import json
import sys

from mcp import Client, MCPError, StdioServerParameters


def check(condition, what, got):
    if not condition:
        raise AssertionError(f"{what}; got {got!r}")


async def run(mode, command, args):
    server = StdioServerParameters(command=command, args=args)
    async with Client(server, mode=mode) as client:
        listed = (await client.list_tools()).tools
        names = [tool.name for tool in listed]
        check("convert_temperature" in names and "search_files" in names, "tools/list names the example tools", names)
        for tool in listed:
            check(tool.description, f"{tool.name} has a description", tool.description)
            check(tool.input_schema.get("type") == "object", f"{tool.name}'s inputSchema is an object schema", tool.input_schema)
            check(tool.annotations is not None, f"{tool.name} has annotations", tool.annotations)
        by_name = {tool.name: tool for tool in listed}
        check(by_name["list_dir"].annotations.read_only_hint is True, "list_dir is read-only", by_name["list_dir"].annotations)
        check(by_name["write_file"].annotations.read_only_hint is False, "write_file is not read-only", by_name["write_file"].annotations)
        check(by_name["search_files"].output_schema is not None, "search_files has an outputSchema", by_name["search_files"])

        # A valid call.
        ok = await client.call_tool("convert_temperature", {"value": 100, "from": "celsius", "to": "fahrenheit"})
        check(not ok.is_error, "a valid call succeeds", ok)
        check(ok.content[0].text == "212.0", "100 C is 212.0 F", ok.content)

        # Structured content, which the SDK itself validates against the outputSchema.
        found = await client.call_tool("search_files", {"query": "a - b", "path": "."})
        check(not found.is_error, "search_files succeeds", found)
        check(isinstance(found.structured_content, dict), "search_files returns structuredContent", found)

        # Bad arguments: one isError result listing every problem.
        bad = await client.call_tool("convert_temperature", {"valu": "a", "from": "kelvinn"})
        check(bad.is_error, "bad arguments give isError", bad)
        check(bad.structured_content is None, "an error has no structuredContent", bad.structured_content)
        error = json.loads(bad.content[0].text)
        check(error["error"] == "invalid_arguments", "the category is invalid_arguments", error)
        problems = {(p["path"], p["message"].split(" ")[0]) for p in error["problems"]}
        expected = {("$", "missing"), ("$", "unexpected"), ("$.from", "must")}
        check(len(error["problems"]) == 4 and expected <= problems, "all four problems are listed", error["problems"])

        # A call the default policy will not run without a person: an error result saying why.
        held = await client.call_tool("run_command", {"command": "rm -rf src"})
        check(held.is_error, "a call that needs approval is an error result", held)
        check(json.loads(held.content[0].text)["error"] == "awaiting_approval", "it says approval is pending", held.content)

        # An unknown tool: the protocol error, naming the closest tool.
        try:
            await client.call_tool("convert_temperatur", {})
        except MCPError as unknown:
            check(unknown.code == -32602, "an unknown tool is error -32602", unknown.code)
            check("did you mean 'convert_temperature'" in unknown.error.message, "it names the closest tool", unknown.error.message)
        else:
            raise AssertionError("an unknown tool gave a result, not the protocol error")

        # The server kept serving through all of that.
        again = await client.call_tool("convert_temperature", {"value": 0, "from": "celsius", "to": "kelvin"})
        check(again.content[0].text == "273.15", "0 C is 273.15 K", again.content)
    print(f"{mode}: {len(names)} tools listed; valid, structured, invalid, held and unknown calls answered as expected")


if __name__ == "__main__":
    asyncio.run(run(sys.argv[1], sys.argv[2], sys.argv[3:]))
