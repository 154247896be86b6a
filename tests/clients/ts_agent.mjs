// TypeScript SDK stdio client for `mcpspy mcp`: list the tools, make each call given, print the results.
// Usage: node ts_agent.mjs CALLS_JSON -- CMD ARGS...   (CALLS_JSON: [[tool, arguments], ...])
// Prints one JSON line with the tool names, then one per call: {tool, isError, structuredContent, text}.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";

const argv = process.argv.slice(2);
const split = argv.indexOf("--");
const calls = JSON.parse(argv[0]);
const [command, ...args] = argv.slice(split + 1);
const transport = new StdioClientTransport({ command, args, env: process.env, stderr: "inherit" });
const client = new Client({ name: "mcpspy-ts-agent-test", version: "1.0.0" });
await client.connect(transport);
const tools = await client.listTools();
console.log(JSON.stringify(tools.tools.map((t) => t.name)));
for (const [tool, toolArgs] of calls) {
  // The SDK checks structuredContent against the tool's outputSchema: a mismatch throws here.
  const result = await client.callTool({ name: tool, arguments: toolArgs });
  const text = result.content.map((c) => c.text);
  console.log(JSON.stringify({ tool, isError: result.isError ?? false, structuredContent: result.structuredContent, text }));
}
await client.close();
