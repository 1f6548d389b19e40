// An agent's MCP client written with the official TypeScript SDK, against
// arbiter serve over Streamable HTTP with a bearer token. Prints one line
// per check; TestServeWithTheTypeScriptSDK reads them.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

const [url, token] = process.argv.slice(2);
const transport = new StreamableHTTPClientTransport(new URL(url),
  { requestInit: { headers: { Authorization: `Bearer ${token}` } } });
const client = new Client({ name: "arbiter-ts-check", version: "0" });
await client.connect(transport);
const tools = await client.listTools();
console.log("tools " + tools.tools.map((t) => t.name).sort().join(","));
const rec = await client.callTool({ name: "record", arguments: { type: "finding", content: "Quokka replicas lag",
  intent: { purpose: "check" }, confidence: { score: 0.5, reasoning: "measured" } } });
console.log("record " + rec.structuredContent.unit_id);
const no = await client.callTool({ name: "conflict", arguments: { conflict_id: "conflict-999" } });
console.log("refusal " + no.isError + " " + no.structuredContent.code);
const found = await client.callTool({ name: "search", arguments: { words: "quokka" } });
console.log("search " + found.structuredContent.units.map((u) => u.id + ":" + u.agent_id).join(","));
let args = { status: ["all"], limit: 4 };
const seen = new Set();
for (;;) {
  const page = (await client.callTool({ name: "conflicts", arguments: args })).structuredContent;
  page.conflicts.forEach((c) => seen.add(c.id));
  if (!page.more) break;
  args = { ...args, cursor: page.next_cursor };
}
console.log("paged " + seen.size);
const inbox = await client.readResource({ uri: "arbiter://inbox" });
console.log("inbox " + inbox.cacheScope);
try {
  await client.listPrompts();
  console.log("prompts answered");
} catch (e) {
  console.log("prompts " + e.code);
}
await client.close();
