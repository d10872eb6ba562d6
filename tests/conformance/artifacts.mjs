// Drive the artifact tools of `rea mcp` with the pinned TypeScript client (it validates each
// structuredContent against the tool's advertised outputSchema) and print one JSON report.
import { Client } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";

const [command, ...args] = JSON.parse(process.argv[2]);
const [left, right] = [process.argv[3], process.argv[4]];
const transport = new StdioClientTransport({ command, args, env: process.env, stderr: "pipe" });
const client = new Client({ name: "rea-artifact-conformance", version: "1.0.0" });
const report = { calls: {}, clientErrors: [] };
client.onerror = (e) => report.clientErrors.push(String(e?.message ?? e));
const call = async (label, name, args) => {
  try {
    const r = await client.callTool({ name, arguments: args });
    report.calls[label] = { isError: r.isError ?? false, structured: r.structuredContent ?? null,
      text: r.content?.[0]?.text ?? null };
    return r.structuredContent;
  } catch (e) {
    report.calls[label] = { thrown: String(e?.message ?? e) };
    return null;
  }
};
try {
  await client.connect(transport);
  await call("open", "open_binary", { path: left });
  const inspected = await call("inspect", "inspect_artifact", {});
  await call("summary", "inspect_artifact", { detail: "summary" });
  await call("inventory", "inventory_artifact", { occurrence_limit: 1 });
  const ref = { kind: "retained-evidence", evidence_id: inspected?.evidence_id };
  await call("view_summary", "inspect_analysis_view", { source: ref });
  await call("view_page", "inspect_analysis_view", { source: ref, view: "inventory", section: "occurrences" });
  await call("view_nodes", "inspect_analysis_view", { source: ref, view: "inventory", section: "nodes" });
  // the 6.x handoff: the complete inventory Evidence rides in substeps[0].evidence
  const inventory = inspected?.normalized_result?.substeps?.[0]?.evidence?.normalized_result;
  const occ = inventory?.occurrences?.items?.find((o) => o.entry_kind === "file" && o.parent_occurrence_id !== null);
  await call("extract", "extract_artifact", { occurrence_ids: [occ?.occurrence_id] });
  await call("extract_all", "extract_artifact", {});
  await call("open2", "open_binary", { path: right });
  const other = await call("inspect2", "inspect_artifact", {});
  await call("compare", "compare_artifacts", { left: ref, right: other });
  await call("compare_inline", "compare_artifacts", { left: inspected, right: other });
} catch (e) {
  report.fatal = String(e?.stack ?? e);
} finally {
  await client.close().catch(() => {});
}
process.stdout.write(JSON.stringify(report));
