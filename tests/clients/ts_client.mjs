// TypeScript SDK stdio client: list tools, call one, print both as JSON lines.
// Usage: node ts_client.mjs TOOL ARGS_JSON -- CMD ARGS...
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";

const argv = process.argv.slice(2);
const split = argv.indexOf("--");
const [tool, argsJson] = argv;
const [command, ...args] = argv.slice(split + 1);
const transport = new StdioClientTransport({ command, args, env: process.env, stderr: "inherit" });
const client = new Client({ name: "mcpspy-ts-test", version: "1.0.0" });
await client.connect(transport);
const tools = await client.listTools();
console.log(JSON.stringify(tools.tools.map((t) => t.name).sort()));
const result = await client.callTool({ name: tool, arguments: JSON.parse(argsJson) });
console.log(JSON.stringify(result.content));
await client.close();
