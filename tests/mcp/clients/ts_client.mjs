// The official MCP TypeScript SDK (@modelcontextprotocol/sdk, pinned in package.json
// beside this file) as a client of toolwright's example server.
//
// Usage:
//   node ts_client.mjs stdio SERVER [ARGS...]   spawns SERVER and speaks MCP on its stdio
//   node ts_client.mjs http URL                 Streamable HTTP, e.g. http://127.0.0.1:8765/mcp
//
// Run it with the node that scripts/test/node-clients prints: the SDK is found in the
// node_modules that node was installed into (or in $TOOLWRIGHT_MCP_CLIENTS/node_modules).
// Prints one summary line and exits 0 when the server answered as the SDK expects;
// otherwise exits 1 saying what differed. Gives up after 30 seconds.

import { readFileSync } from "node:fs";
import path from "node:path";

import { checks, connectTo, main, nodeModules, sdk, text } from "./common.mjs";

const TIMEOUT_MS = 30_000;

const { fail, check } = checks("ts_client");

async function run(mode, target, args) {
    const { Client } = await sdk("client/index.js");
    const { version } = JSON.parse(readFileSync(path.join(nodeModules(), "@modelcontextprotocol", "sdk", "package.json"), "utf8"));
    const transport = await connectTo(mode, target, args);
    if (!transport) fail(`unknown mode ${JSON.stringify(mode)}: use stdio or http`);

    const client = new Client({ name: "toolwright-ts-client", version: "0.0.0" });
    await client.connect(transport);
    try {
        const server = client.getServerVersion();
        check(server?.name, "initialize names the server", server);

        const { tools } = await client.listTools();
        const names = tools.map((t) => t.name);
        check(names.includes("convert_temperature"), "tools/list offers convert_temperature", names);
        const convert = tools.find((t) => t.name === "convert_temperature");
        check(convert.inputSchema?.type === "object", "convert_temperature's inputSchema is an object schema", convert.inputSchema);
        check(
            JSON.stringify([...(convert.inputSchema.required ?? [])].sort()) === JSON.stringify(["from", "to", "value"]),
            "convert_temperature requires value, from and to",
            convert.inputSchema.required,
        );

        // A valid call: 100 C is 212 F.
        const ok = await client.callTool({ name: "convert_temperature", arguments: { value: 100, from: "celsius", to: "fahrenheit" } });
        check(ok.isError !== true, "a valid call succeeds", ok);
        check(Number(text(ok)) === 212, "100 celsius is 212 fahrenheit", ok.content);

        // A wrong type: an isError result (not a protocol error) naming the argument.
        const bad = await client.callTool({ name: "convert_temperature", arguments: { value: "hot", from: "celsius", to: "kelvin" } });
        check(bad.isError === true, "a string for the number `value` gives isError", bad);
        check(/\bvalue\b/.test(text(bad)), "the error names the bad argument `value`", text(bad));

        // An unknown tool: a JSON-RPC error, or at least an isError result.
        let unknown;
        try {
            const result = await client.callTool({ name: "convert_temprature", arguments: {} });
            check(result.isError === true, "an unknown tool gives an error", result);
            unknown = `isError result (${JSON.stringify(text(result))})`;
        } catch (error) {
            check(error?.code !== undefined, "an unknown tool gives a JSON-RPC error", String(error));
            unknown = `JSON-RPC error ${error.code} (${JSON.stringify(error.message)})`;
        }

        const protocol = transport.protocolVersion ? `, protocol ${transport.protocolVersion}` : "";
        console.log(
            `ts_client ${mode}: @modelcontextprotocol/sdk ${version} against ${server.name} ${server.version}${protocol}: ` +
                `${names.length} tools listed; valid call = ${text(ok)}; wrong type = isError naming \`value\`; unknown tool = ${unknown}`,
        );
    } finally {
        await client.close();
    }
}

main("ts_client", "ts_client.mjs stdio SERVER [ARGS...] | ts_client.mjs http URL", TIMEOUT_MS, run);
