// Seeing and correcting memories from the CLI: list, get, history, edit, stats. Each prints for people,
// or the bridge's JSON with --json.
import { DreamError } from "../protocol/errors";
import type { ListPage, MemoryDetail, MemoryStats, SlotHistory } from "../store/memory-views";
import { VIEW_LIMITS } from "../store/memory-views";
import type { MemoryRecord } from "../store/records";
import { flagInt, flagString, type ParsedArgs } from "./args";
import { textFrom, type MemoryApi } from "./commands";
import type { CliIo } from "./io";
import { formatDetail, formatHistory, formatList, formatStats } from "./views";
import { parseWhen } from "./when";

export async function listCommand(api: MemoryApi, args: ParsedArgs, io: CliIo): Promise<number> {
  if (args.flags.has("quarantined") && args.flags.has("active")) throw new DreamError("BAD_ARGUMENTS", "--quarantined and --active exclude each other; give one");
  const limit = flagInt(args, "limit", 1, VIEW_LIMITS.maxPage) ?? VIEW_LIMITS.defaultPage;
  const page = flagInt(args, "page", 1) ?? 1;
  const now = Date.now();
  const params: Record<string, unknown> = { limit, offset: (page - 1) * limit };
  const copy: Array<[string, string]> = [
    ["scope", "scope"],
    ["source-type", "source_type"],
    ["tag", "tag"],
    ["session", "session_id"],
    ["contains", "contains"],
  ];
  for (const [flag, field] of copy) {
    const value = flagString(args, flag);
    if (value !== undefined) params[field] = value;
  }
  const since = flagString(args, "since");
  if (since !== undefined) params.since_ms = parseWhen(since, "since", now);
  const until = flagString(args, "until");
  if (until !== undefined) params.until_ms = parseWhen(until, "until", now);
  if (args.flags.has("quarantined")) params.status = "quarantined";
  if (args.flags.has("active")) params.status = "active";
  if (args.flags.has("oldest")) params.order = "oldest";
  const result = await api.call<ListPage>("list", params);
  if (args.flags.has("json")) io.out(JSON.stringify(result) + "\n");
  else if (result.memories.length === 0 && result.total > 0) io.out(`page ${page} is past the end: ${result.total} memories make ${Math.ceil(result.total / limit)} page(s)\n`);
  else io.out(formatList(result, page, limit));
  return 0;
}

export async function getCommand(api: MemoryApi, args: ParsedArgs, io: CliIo): Promise<number> {
  const detail = await api.call<MemoryDetail>("inspect", { id: args.positionals[0] });
  io.out(args.flags.has("json") ? JSON.stringify(detail) + "\n" : formatDetail(detail));
  return 0;
}

export async function historyCommand(api: MemoryApi, args: ParsedArgs, io: CliIo): Promise<number> {
  const subject = args.positionals.join(" ");
  const result = await api.call<{ subject: string; slots: SlotHistory[] }>("history", { subject });
  io.out(args.flags.has("json") ? JSON.stringify(result) + "\n" : formatHistory(subject, result.slots));
  return 0;
}

export async function editCommand(api: MemoryApi, args: ParsedArgs, io: CliIo): Promise<number> {
  const text = await textFrom(args, io, "edit");
  const result = await api.call<{ record: MemoryRecord; replaced: MemoryRecord }>("edit", { id: args.positionals[0], text });
  if (args.flags.has("json")) io.out(JSON.stringify(result) + "\n");
  else io.out(`${result.record.id} replaces ${result.replaced.id}, which recall no longer uses (dsh-dream get ${result.record.id} shows both)\n`);
  return 0;
}

export async function statsCommand(api: MemoryApi, args: ParsedArgs, io: CliIo): Promise<number> {
  const stats = await api.call<MemoryStats>("stats", {});
  io.out(args.flags.has("json") ? JSON.stringify(stats) + "\n" : formatStats(stats));
  return 0;
}
