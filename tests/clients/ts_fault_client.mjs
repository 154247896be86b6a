// TypeScript SDK stdio client for --inject runs: CALLS requests, each bounded, whatever befalls them.
// Usage: node ts_fault_client.mjs [--v2] CALLS TOOL ARGS_JSON -- CMD ARGS...
// Every third request lists the tools, the others call TOOL; each waits at most TIMEOUT ms (the SDK
// then cancels it). One JSON line per request; three failures in a row (the connection is gone) end
// it. Exit 0 whatever happened: the capture tells the reaction, not this. --v2: the SDK v2 client
// (@modelcontextprotocol/client), whose callTool lost v1's result-schema argument.
let argv = process.argv.slice(2);
const v2 = argv[0] === "--v2";
if (v2) argv = argv.slice(1);
const { Client } = await import(v2 ? "@modelcontextprotocol/client" : "@modelcontextprotocol/sdk/client/index.js");
const { StdioClientTransport } = await import(
  v2 ? "@modelcontextprotocol/client/stdio" : "@modelcontextprotocol/sdk/client/stdio.js"
);

const TIMEOUT = 3000;
const split = argv.indexOf("--");
const [calls, tool, argsJson] = argv;
const [command, ...args] = argv.slice(split + 1);
const transport = new StdioClientTransport({ command, args, env: process.env, stderr: "inherit" });
const client = new Client({ name: "mcpspy-fault-test", version: "1.0.0" });
const callTool = (params, options) =>
  v2 ? client.callTool(params, options) : client.callTool(params, undefined, options);
let closed = false;
client.onclose = () => {
  closed = true;
};
client.onerror = () => {};
try {
  await client.connect(transport, { timeout: 30000 });
  let failures = 0;
  for (let i = 0; i < Number(calls) && !closed; i++) {
    try {
      if (i % 3 === 2) {
        await client.listTools(undefined, { timeout: TIMEOUT });
      } else {
        await callTool({ name: tool, arguments: JSON.parse(argsJson) }, { timeout: TIMEOUT });
      }
      console.log(JSON.stringify({ call: i, outcome: "ok" }));
      failures = 0;
    } catch (error) {
      console.log(JSON.stringify({ call: i, outcome: error?.constructor?.name ?? "Error" }));
      if (++failures >= 3) break;
    }
  }
} catch (error) {
  console.log(JSON.stringify({ ended: error?.constructor?.name ?? "Error" }));
}
await client.close().catch(() => {});
process.exit(0);
