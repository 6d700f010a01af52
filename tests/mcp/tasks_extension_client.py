"""A client of 2026-07-28's tasks extension (io.modelcontextprotocol/tasks) against
toolwright's example server: FastMCP 4 with fastmcp-tasks, the one ready-made client of
the extension (the official Python SDK 2.x and TypeScript SDK 2.x do not implement it).
Over stdio: fastmcp-tasks 4.1.4 does not send the `Mcp-Name` header the extension's HTTP
binding requires on tasks/get, so a conforming HTTP server (rmcp's, toolwright's) refuses
its polls.

    python tasks_extension_client.py SERVER [ARGS...]

SERVER runs with --tasks --client-approval --ledger PATH. Prints one summary line and
exits 0 when every step went as the client expects; otherwise exits 1 saying what
differed. Gives up after 60 seconds.
"""

import asyncio
import sys
from importlib.metadata import version

import fastmcp_tasks  # noqa: F401 (importing it turns on the client's task support)
from fastmcp import Client
from fastmcp.client.transports import StdioTransport
from fastmcp_tasks import call_tool_task
from script_checks import checks, text


fail, check = checks("tasks_extension_client")


async def main():
    if len(sys.argv) < 2:
        fail("usage: tasks_extension_client.py SERVER [ARGS...]")
    asked = []

    async def approve(message, response_type, params, context):
        asked.append(message)
        return {"approve": True}

    transport = StdioTransport(command=sys.argv[1], args=sys.argv[2:])
    async with Client(transport, elicitation_handler=approve) as client:
        # call_tool follows a task to its end without being asked to.
        followed = await client.call_tool("build_report", {"weeks": 1})
        check(text(followed) == "activity report of the last 1 weeks: all quiet", "call_tool followed the task", followed)

        task = await call_tool_task(client, "build_report", {"weeks": 2})
        status = await task.status()
        check(status.status in ("working", "completed"), "the report is a task", status)
        result = await task.result()
        check(text(result) == "activity report of the last 2 weeks: all quiet", "the task's result", result)

        # A payout over the limit: input_required, answered through the elicitation
        # handler and tasks/update, paid once.
        paid = await client.call_tool("send_payout", {"recipient": "acct-9", "amount": 5000})
        check(text(paid) == "paid 5000 to acct-9", "the approved payout ran", paid)
        check(len(asked) == 1 and "send_payout" in asked[0], "the approval was asked once", asked)

        long = await call_tool_task(client, "build_report", {"weeks": 52})
        await long.cancel()
        cancelled = await long.status()
        check(cancelled.status == "cancelled", "the long report was cancelled", cancelled)
    print(
        f"tasks_extension_client: fastmcp {version('fastmcp')}, fastmcp-tasks {version('fastmcp-tasks')}: "
        f"report followed, task handle read, payout approved once, long report cancelled"
    )


if __name__ == "__main__":
    try:
        asyncio.run(asyncio.wait_for(main(), 60))
    except asyncio.TimeoutError:
        fail("gave up after 60 s")
