// The official MCP TypeScript SDK's tasks (@modelcontextprotocol/sdk 1.x, the
// 2025-11-25 revision's experimental tasks: client.experimental.tasks) against
// toolwright's example server started with --tasks --client-approval.
//
// Usage:
//   node ts_tasks_client.mjs stdio SERVER [ARGS...]   spawns SERVER and speaks MCP on its stdio
//   node ts_tasks_client.mjs http URL                 Streamable HTTP
//
// Run it with the node that scripts/test/node-clients prints. Prints one summary line
// and exits 0 when every step went as the SDK expects; otherwise exits 1 saying what
// differed. Gives up after 60 seconds.

import { readFileSync } from "node:fs";
import path from "node:path";

import { checks, connectTo, main, nodeModules, sdk, text } from "./common.mjs";

const TIMEOUT_MS = 60_000;
const RELATED_TASK = "io.modelcontextprotocol/related-task";

const { fail, check } = checks("ts_tasks_client");

// Every message of one callToolStream, and the result it ended with.
async function stream(client, name, args) {
    const kinds = [];
    let created;
    let result;
    for await (const message of client.experimental.tasks.callToolStream({ name, arguments: args })) {
        kinds.push(message.type === "taskStatus" ? `status:${message.task.status}` : message.type);
        if (message.type === "taskCreated") created = message.task;
        if (message.type === "result") result = message.result;
        if (message.type === "error") fail(`${name}'s stream ended with an error: ${message.error?.message}`);
    }
    return { kinds, created, result };
}

async function run(mode, target, args) {
    const { Client } = await sdk("client/index.js");
    const { ElicitRequestSchema } = await sdk("types.js");
    const { version } = JSON.parse(readFileSync(path.join(nodeModules(), "@modelcontextprotocol", "sdk", "package.json"), "utf8"));
    const transport = await connectTo(mode, target, args);
    if (!transport) fail(`unknown mode ${JSON.stringify(mode)}: use stdio or http`);

    const client = new Client({ name: "toolwright-ts-tasks-client", version: "0.0.0" }, { capabilities: { elicitation: { form: {} } } });
    // The person approving: says yes, and notes which task asked.
    const asked = [];
    client.setRequestHandler(ElicitRequestSchema, async (request) => {
        asked.push({ task: request.params._meta?.[RELATED_TASK]?.taskId, message: request.params.message });
        return { action: "accept", content: { approve: true } };
    });
    await client.connect(transport);
    try {
        const tasksCapability = client.getServerCapabilities()?.tasks;
        check(tasksCapability?.requests?.tools?.call, "initialize advertises tasks for tools/call", client.getServerCapabilities());

        const { tools } = await client.listTools();
        const report = tools.find((t) => t.name === "build_report");
        check(report?.execution?.taskSupport === "optional", "build_report is listed with taskSupport optional", report);
        check(client.isToolTask("build_report"), "the SDK takes build_report for a task tool", null);

        // A slow report: created, polled while working, its result read with tasks/result.
        const built = await stream(client, "build_report", { weeks: 2 });
        check(built.created?.taskId, "build_report became a task", built.kinds);
        check(built.kinds.includes("status:working") || built.kinds.includes("status:completed"), "the SDK polled the task", built.kinds);
        check(text(built.result) === "activity report of the last 2 weeks: all quiet", "the task's result is the report", built.result);
        check(built.result?._meta?.[RELATED_TASK]?.taskId === built.created.taskId, "the result names its task", built.result?._meta);

        // A payout over the limit: input_required, tasks/result asks the person (an
        // elicitation marked with the task), and the payout is made once.
        const paid = await stream(client, "send_payout", { recipient: "acct-7", amount: 5000 });
        check(text(paid.result) === "paid 5000 to acct-7", "the approved payout ran", paid.result);
        check(asked.length === 1 && asked[0].task === paid.created.taskId, "the approval was asked once, marked with the payout's task", asked);
        check(paid.kinds.includes("status:input_required"), "the task waited in input_required", paid.kinds);

        // Listed, then a long report cancelled while it runs.
        const listed = await client.experimental.tasks.listTasks();
        const ids = listed.tasks.map((t) => t.taskId);
        check(ids.includes(built.created.taskId) && ids.includes(paid.created.taskId), "tasks/list has both tasks", ids);
        const { CallToolResultSchema } = await sdk("types.js");
        const long = client.experimental.tasks.callToolStream({ name: "build_report", arguments: { weeks: 52 } }, CallToolResultSchema);
        const first = await long.next();
        check(first.value?.type === "taskCreated", "the long report became a task", first.value);
        const cancelled = await client.experimental.tasks.cancelTask(first.value.task.taskId);
        check(cancelled.status === "cancelled", "tasks/cancel answers the task, cancelled", cancelled);
        const after = await client.experimental.tasks.getTask(first.value.task.taskId);
        check(after.status === "cancelled", "the task stays cancelled", after);
        await long.return();

        const protocol = transport.protocolVersion ? `, protocol ${transport.protocolVersion}` : "";
        console.log(
            `ts_tasks_client ${mode}: @modelcontextprotocol/sdk ${version}${protocol}: ` +
                `report = ${built.kinds.join(" ")}; payout = ${paid.kinds.join(" ")}, approval asked ${asked.length} time(s) with its task; ` +
                `${listed.tasks.length} tasks listed; long report cancelled`,
        );
    } finally {
        await client.close();
    }
}

main("ts_tasks_client", "ts_tasks_client.mjs stdio SERVER [ARGS...] | ts_tasks_client.mjs http URL", TIMEOUT_MS, run);
