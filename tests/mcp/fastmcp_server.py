"""A FastMCP server (fastmcp 4.2.3, pinned in tests/mcp/requirements.txt) for
tests/mcp_client.rs: tools written the way FastMCP users write them, with its own
schema generation, annotations, output schemas and errors.

    python fastmcp_server.py                 # stdio
    python fastmcp_server.py --http PORT     # Streamable HTTP at http://127.0.0.1:PORT/mcp
"""

import sys
from typing import Literal

from fastmcp import FastMCP
from fastmcp.exceptions import ToolError
from pydantic import BaseModel, Field

mcp = FastMCP("fastmcp-notes")
NOTES: list[str] = []


class Forecast(BaseModel):
    city: str
    celsius: float
    sky: Literal["clear", "cloudy", "rain"]


@mcp.tool(annotations={"readOnlyHint": True, "openWorldHint": False})
def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


@mcp.tool(annotations={"readOnlyHint": True, "openWorldHint": False})
def forecast(city: str = Field(description="The city, like Oslo.", min_length=1)) -> Forecast:
    """Tomorrow's forecast for a city."""
    return Forecast(city=city, celsius=21.5, sky="clear")


@mcp.tool(annotations={"readOnlyHint": True, "openWorldHint": False})
def divide(a: float, b: float) -> float:
    """Divide a by b."""
    if b == 0:
        raise ToolError("cannot divide by zero")
    return a / b


@mcp.tool(
    annotations={
        "readOnlyHint": False,
        "destructiveHint": False,
        "idempotentHint": False,
        "openWorldHint": False,
    }
)
def remember(note: str) -> str:
    """Keep a note."""
    NOTES.append(note)
    return f"kept note {len(NOTES)}"


@mcp.tool(annotations={"readOnlyHint": True, "openWorldHint": False})
def notes() -> list[str]:
    """Every note kept, oldest first."""
    return NOTES


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "--http":
        mcp.run(transport="http", host="127.0.0.1", port=int(sys.argv[2]), show_banner=False)
    else:
        mcp.run(show_banner=False)
