// TypeScript SDK stdio client for --inject runs: CALLS requests, each bounded, whatever befalls them.
// Usage: node ts_fault_client.mjs CALLS TOOL ARGS_JSON -- CMD ARGS...
// Every third request lists the tools, the others call TOOL; each waits at most TIMEOUT ms (the SDK
// then cancels it). One JSON line per request; three failures in a row (the connection is gone) end
// it. Exit 0 whatever happened: the capture tells the reaction, not this.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";

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
        await client.callTool({ name: tool, arguments: JSON.parse(argsJson) }, undefined, { timeout: TIMEOUT });
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
