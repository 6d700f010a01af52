"""The official MCP Python SDK approving and declining a call inside the protocol: on
2026-07-28 a call that needs approval answers with an input-required result whose
elicitation the client's callback answers, and the SDK retries with the answer.

Usage: approval_client.py LEDGER SERVER [ARGS...]. The server must serve `send_payout`
(payouts over 1,000 need approval) writing to LEDGER, with `--client-approval`. Exits
non-zero, saying what differed. Run by tests/mcp_approval.rs.
"""

import asyncio
import json
import sys
from pathlib import Path

from mcp import Client, StdioServerParameters
from mcp.types import ElicitResult


def check(condition, what, got):
    if not condition:
        raise AssertionError(f"{what}; got {got!r}")


def ledger_lines(path):
    return Path(path).read_text().splitlines() if Path(path).exists() else []


async def run(ledger, command, args):
    server = StdioServerParameters(command=command, args=args)
    asked = []

    async def person(decision):
        async def answer(context, params):
            asked.append(params.message)
            if decision == "approve":
                return ElicitResult(action="accept", content={"approve": True})
            return ElicitResult(action="decline")
        return answer

    # Approved: the call runs once, after the person said yes to this exact call.
    async with Client(server, mode="2026-07-28", elicitation_callback=await person("approve")) as client:
        paid = await client.call_tool("send_payout", {"recipient": "acct-7", "amount": 5000})
        check(not paid.is_error, "an approved payout runs", paid)
        check(paid.content[0].text == "paid 5000 to acct-7", "the tool's own result comes back", paid.content)
        check(len(asked) == 1, "the person was asked once", asked)
        check("send_payout" in asked[0] and "5000" in asked[0] and "1,000 limit" in asked[0],
              "the question shows the tool, the arguments and the reason", asked[0])
        check(len(ledger_lines(ledger)) == 1, "one payout in the ledger", ledger_lines(ledger))

        # Under the limit: no question, the call just runs.
        small = await client.call_tool("send_payout", {"recipient": "acct-8", "amount": 10})
        check(not small.is_error and len(asked) == 1, "a call without approval asks nothing", (small, asked))

    # Declined: the tool does not run, and the model reads why.
    async with Client(server, mode="2026-07-28", elicitation_callback=await person("decline")) as client:
        declined = await client.call_tool("send_payout", {"recipient": "acct-9", "amount": 7000})
        check(declined.is_error, "a declined payout is an error result", declined)
        error = json.loads(declined.content[0].text)
        check(error["error"] == "denied", "its category is denied", error)
        check("declined" in error["message"], "the message says the person declined", error)
        check(len(asked) == 2, "the person was asked", asked)
        check(len(ledger_lines(ledger)) == 2, "nothing more was paid", ledger_lines(ledger))

    # A client without elicitation gets today's awaiting_approval result, with its ticket.
    async with Client(server, mode="2026-07-28") as client:
        waiting = await client.call_tool("send_payout", {"recipient": "acct-10", "amount": 9000})
        check(waiting.is_error, "without elicitation the call waits", waiting)
        check(json.loads(waiting.content[0].text)["error"] == "awaiting_approval", "it awaits approval", waiting.content)
        check(len(asked) == 2, "nobody was asked", asked)
    print("approved, declined and awaiting as expected")


if __name__ == "__main__":
    asyncio.run(run(sys.argv[1], sys.argv[2], sys.argv[3:]))
