"""Clients of the 2025-11-25 revision's tasks against toolwright's example server.

The official Python SDK (mcp 1.30, `session.experimental`) and FastMCP 3
(`call_tool(..., task=True)`), both over stdio, pinned in requirements-tasks-2025.txt:

    python tasks_client.py SERVER [ARGS...]

SERVER runs with --tasks --client-approval --ledger PATH. Prints one summary line and
exits 0 when every step went as the client expects; otherwise exits 1 saying what
differed. Gives up after 60 seconds.
"""

import asyncio
import sys
import warnings

import mcp.types as types
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client
from script_checks import checks, text

RELATED_TASK = "io.modelcontextprotocol/related-task"

# mcp 1.x marks its experimental tasks deprecated (2.0 removed them): they are what this
# revision's clients run, so the warning says nothing here.
warnings.filterwarnings("ignore", category=DeprecationWarning)


fail, check = checks("tasks_client")


async def official_sdk(command, args):
    asked = []

    async def approve(context, params):
        meta = (params.meta.model_dump() if params.meta else {}) or {}
        asked.append(((meta.get(RELATED_TASK) or {}).get("taskId"), params.message))
        return types.ElicitResult(action="accept", content={"approve": True})

    server = StdioServerParameters(command=command, args=args)
    async with stdio_client(server) as (read, write):
        async with ClientSession(read, write, elicitation_callback=approve) as session:
            init = await session.initialize()
            capabilities = init.capabilities.model_dump(exclude_none=True)
            check(
                capabilities.get("tasks", {}).get("requests", {}).get("tools", {}).get("call") is not None,
                "initialize advertises tasks for tools/call",
                capabilities,
            )
            tools = {tool.name: tool for tool in (await session.list_tools()).tools}
            execution = tools["build_report"].execution
            check(execution and execution.taskSupport == "optional", "build_report is listed with taskSupport optional", execution)

            # A report: created, polled to its end, its result read.
            created = await session.experimental.call_tool_as_task("build_report", {"weeks": 2})
            report = created.task.taskId
            statuses = [status.status async for status in session.experimental.poll_task(report)]
            check(statuses[-1] == "completed", "the report's task completed", statuses)
            result = await session.experimental.get_task_result(report, types.CallToolResult)
            check(text(result) == "activity report of the last 2 weeks: all quiet", "the report's result", result)

            # A payout over the limit waits for a person: get_task_result asks through the
            # elicitation callback, marked with the task, and the payout is made.
            created = await session.experimental.call_tool_as_task("send_payout", {"recipient": "acct-8", "amount": 5000})
            payout = created.task.taskId
            async for status in session.experimental.poll_task(payout):
                if status.status == "input_required":
                    break
            check(status.status == "input_required", "the payout waits for approval", status)
            result = await session.experimental.get_task_result(payout, types.CallToolResult)
            check(text(result) == "paid 5000 to acct-8", "the approved payout ran", result)
            check(len(asked) == 1 and asked[0][0] == payout, "the approval was asked once, marked with the payout's task", asked)

            listed = await session.experimental.list_tasks()
            ids = [task.taskId for task in listed.tasks]
            check(report in ids and payout in ids, "tasks/list has both tasks", ids)

            created = await session.experimental.call_tool_as_task("build_report", {"weeks": 52})
            cancelled = await session.experimental.cancel_task(created.task.taskId)
            check(cancelled.status == "cancelled", "tasks/cancel answers the task, cancelled", cancelled)
            return f"mcp: report {' '.join(statuses)}, payout approved once, {len(ids)} tasks listed, long report cancelled"


async def fastmcp_client(command, args):
    from fastmcp import Client
    from fastmcp.client.transports import StdioTransport

    async with Client(StdioTransport(command=command, args=args)) as client:
        task = await client.call_tool("build_report", {"weeks": 1}, task=True)
        check(not task.returned_immediately, "FastMCP's call became a task", task)
        result = await task.result()
        check(text(result) == "activity report of the last 1 weeks: all quiet", "FastMCP's task result", result)
        long = await client.call_tool("build_report", {"weeks": 52}, task=True)
        await long.cancel()
        status = await long.status()
        check(status.status == "cancelled", "FastMCP cancelled the long report", status)
        return "fastmcp: report through a ToolTask, long report cancelled"


async def main():
    if len(sys.argv) < 2:
        fail("usage: tasks_client.py SERVER [ARGS...]")
    command, args = sys.argv[1], sys.argv[2:]
    from importlib.metadata import version

    sdk = await official_sdk(command, args)
    fast = await fastmcp_client(command, args)
    print(f"tasks_client: mcp {version('mcp')}, fastmcp {version('fastmcp')}: {sdk}; {fast}")


if __name__ == "__main__":
    try:
        asyncio.run(asyncio.wait_for(main(), 60))
    except asyncio.TimeoutError:
        fail("gave up after 60 s")
