// Drive `rea mcp` with the pinned TypeScript client and print one JSON report on stdout.
// The client validates structuredContent against each tool's outputSchema itself.
import { Client } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";

const [command, ...args] = JSON.parse(process.argv[2]);
const bundlePath = process.argv[3];
const transport = new StdioClientTransport({ command, args, env: process.env, stderr: "pipe" });
const client = new Client({ name: "rea-conformance", version: "1.0.0" });
const report = { calls: {}, clientErrors: [] };
client.onerror = (e) => report.clientErrors.push(String(e?.message ?? e));
try {
  await client.connect(transport);
  report.server = client.getServerVersion();
  const listed = await client.listTools();
  report.tools = listed.tools.map((t) => ({ name: t.name, outputSchemaId: t.outputSchema?.$id ?? null }));
  const call = async (label, name, args, options) => {
    try {
      const r = await client.callTool({ name, arguments: args }, options);
      report.calls[label] = { isError: r.isError ?? false, meta: r._meta ?? null,
        structured: r.structuredContent ?? null, text: r.content?.[0]?.text ?? null };
    } catch (e) {
      report.calls[label] = { thrown: String(e?.message ?? e) };
    }
  };
  await call("session", "binary_session", {});
  await call("open", "open_binary", { path: "/usr/bin/true" });
  await call("import", "import_evidence_bundle", { path: bundlePath });
  await call("summary", "get_evidence_bundle", { detail: "summary" });
  const progress = [];
  await call("progress", "open_binary", { path: "/usr/bin/true" }, { onprogress: (p) => progress.push(p) });
  report.progress = progress;
  // Quick calls with a progress token: the terminal notification must be handled before its
  // result settles the request, every time (else "progress notification for an unknown token").
  report.quickProgress = [];
  for (let i = 0; i < 40; i++) {
    const seen = [];
    await client.callTool({ name: "list_unknowns", arguments: {} }, { onprogress: (p) => seen.push(p.message) });
    report.quickProgress.push(seen.at(-1) ?? null);
  }
  await call("complete", "get_evidence_bundle", {});
  await call("bad", "list_unknowns", { limit: "ten" });
  await call("unknown", "record_unknown", { question: "Is it packed?", domain: "packing", severity: "low" });
  await call("ghidra", "open_binary", { path: "/usr/bin/true", provider_id: "ghidra" });
  await call("close", "close_binary", {});
  await call("closeAgain", "close_binary", { overwrite: false });
} catch (e) {
  report.fatal = String(e?.stack ?? e);
} finally {
  await client.close().catch(() => {});
}
process.stdout.write(JSON.stringify(report));
