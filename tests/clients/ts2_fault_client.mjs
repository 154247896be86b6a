// TypeScript SDK v2 (@modelcontextprotocol/client) stdio client for --inject runs: as ts_fault_client.mjs.
// Usage: node ts2_fault_client.mjs CALLS TOOL ARGS_JSON -- CMD ARGS...
// Every third request lists the tools, the others call TOOL; each waits at most TIMEOUT ms. One JSON
// line per request; three failures in a row (the connection is gone) end it. Exit 0 whatever
// happened: the capture tells the reaction, not this. v2 moved the client to its own package and
// callTool lost its result-schema argument; the rest is v1's.
import { Client } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";

const TIMEOUT = 3000;
const argv = process.argv.slice(2);
const split = argv.indexOf("--");
const [calls, tool, argsJson] = argv;
const [command, ...args] = argv.slice(split + 1);
const transport = new StdioClientTransport({ command, args, env: process.env, stderr: "inherit" });
const client = new Client({ name: "mcpspy-fault-test", version: "1.0.0" });
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
        await client.callTool({ name: tool, arguments: JSON.parse(argsJson) }, { timeout: TIMEOUT });
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
