// What the Node.js clients beside this file share: failing with a message (ending the
// server process a stdio transport started), checks, the pinned SDK's modules, and the
// transport of a mode (stdio SERVER [ARGS...] | http URL).

import { existsSync } from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";

// The transport in use, so that a failure can end the server process it started.
let transport;

export function fail(who, message) {
    console.error(`${who}: ${message}`);
    if (transport?.pid) {
        try {
            process.kill(transport.pid, "SIGKILL");
        } catch {}
    }
    process.exit(1);
}

// `fail` and `check` for the client named `who`.
export function checks(who) {
    const failing = (message) => fail(who, message);
    const check = (condition, what, got) => {
        if (!condition) failing(`${what}; got ${JSON.stringify(got)}`);
    };
    return { fail: failing, check };
}

// Where the pinned packages are: beside the node binary that runs us
// (<work>/node_modules/node/bin/node), unless $TOOLWRIGHT_MCP_CLIENTS says otherwise.
export function nodeModules() {
    const candidates = [];
    if (process.env.TOOLWRIGHT_MCP_CLIENTS) {
        candidates.push(path.join(process.env.TOOLWRIGHT_MCP_CLIENTS, "node_modules"));
    }
    candidates.push(path.resolve(path.dirname(process.execPath), "..", ".."));
    for (const dir of candidates) {
        if (existsSync(path.join(dir, "@modelcontextprotocol", "sdk", "package.json"))) return dir;
    }
    console.error(`@modelcontextprotocol/sdk not found in ${candidates.join(" or ")}; run this with the node scripts/test/node-clients prints`);
    process.exit(1);
}

export async function sdk(subpath) {
    return import(pathToFileURL(path.join(nodeModules(), "@modelcontextprotocol", "sdk", "dist", "esm", subpath)).href);
}

export function text(result) {
    return (result?.content ?? []).filter((c) => c.type === "text").map((c) => c.text).join("\n");
}

// The transport of `mode` to `target` (a server command and its `args`, or a URL).
export async function connectTo(mode, target, args) {
    if (mode === "stdio") {
        const { StdioClientTransport } = await sdk("client/stdio.js");
        // The server's own log lines go to our stderr, where a failing test shows them.
        transport = new StdioClientTransport({ command: target, args, stderr: "inherit" });
    } else if (mode === "http") {
        const { StreamableHTTPClientTransport } = await sdk("client/streamableHttp.js");
        transport = new StreamableHTTPClientTransport(new URL(target));
    } else {
        return undefined;
    }
    return transport;
}

// Runs `run(mode, target, args)` from the command line within `timeoutMs`, exiting 0
// when it returns and 1 (saying why) when it throws or takes longer.
export function main(who, usage, timeoutMs, run) {
    const [mode, target, ...args] = process.argv.slice(2);
    if (!mode || !target) fail(who, `usage: ${usage}`);
    const timer = setTimeout(() => fail(who, `gave up after ${timeoutMs / 1000} s`), timeoutMs);
    run(mode, target, args).then(
        () => {
            clearTimeout(timer);
            process.exit(0);
        },
        (error) => fail(who, error?.stack ?? String(error)),
    );
}
