#!/usr/bin/env python3
"""Writes docs/PERFORMANCE.md from the benchmark runs scripts/performance.sh collected.

    performance-document.py WORK OUT NAME…

WORK holds `machine` and, for each benchmark run, NAME.meta and NAME.out. A benchmark with no
run in WORK keeps its section of OUT as it was (the latest run of it); every other part of
the document is written here, so nothing in it is pasted by hand.
"""
import os
import re
import sys

TITLES = {
    "sqlite": "SQLite store: append and read",
    "commands": "Commands through the runner",
    "projections": "Projections: rebuild and reads",
    "audit": "Audit trail: hashing, verify, the kept Merkle tree",
    "follower": "The Merkle tree's whole cost on SQLite",
    "postgres": "PostgreSQL store: append and read",
    "serve": "HTTP server: `evtool serve`",
    "crud": "HTTP server against the plain back end an app would otherwise have",
    "scale": "Scale: the log at two sizes",
    "import": "Import",
    "report": "Audit report",
}

MEANING = {
    "sqlite": """Each line is evtool's rate beside a baseline measured in the same run: the raw SQLite
library doing the same work on the same rows (a prepared statement, the same schema and
pragmas, WAL, `synchronous=FULL`), and the ratio against its target. Every evtool append also
computes its hash-chain link; the raw baseline inserts the same rows, hash included. A
one-event append is bound by the disk flush of each commit, as the raw library is, so its ratio
follows the disk. The memory line shows that reading the whole log streams in bounded memory.""",
    "commands": """A command goes through the runner: load the user's state, decide, append with the expected
version; each is one durable commit, so the disk flush sets the rate. The runner keeps each
user's state in memory and reads only new events; a new process starts from a snapshot (every
100 events) instead of the whole stream, which is what the long-stream ratio (target ≤ 5×)
measures.""",
    "projections": """Rebuilding every view from the log, against a raw read of the same log (target ≥ 0.3 of it);
the rebuild's peak memory against the size of the views it builds (it must be bounded by the
views, not by the log); and the read of one user's current view.""",
    "audit": """The cost of the audit trail: the batched append with and without the hash chain, `verify`
against a raw read of every column, and the kept Merkle tree's follower as a share of the
appends it follows (target ≤ 10%), on SQLite and, with `--postgres`, on PostgreSQL. A follower
on the appending connection takes the chain hashes from memory; one in another process reads
the rows back; on PostgreSQL a follower on another handle leaves the hashing to the server
(`merkle_extend`). The "tile writes" counts show that the appends themselves write no tile.""",
    "follower": """The SQLite follower alone, with the tree's whole cost: the same batches, alternating, go to
a file that keeps no tree, and the line compares appends plus follower with appends alone, so
that the WAL checkpoints a follower's commit runs are counted wherever they fall (target ≤ 10%).""",
    "postgres": """Each figure is beside a baseline on the same server in the same run: `COPY` of the same rows for
the batched append, raw single-row `INSERT`s one transaction each over 1 and 8 connections for
the one-event append, a raw `SELECT` for the read. One-event figures are medians of rounds that
time evtool and its baseline back to back (odd rounds in reverse order); the spread is of the
per-round ratios. The store is a new one, so it has the single-table layout (schema 18): a
one-event append writes two rows (the stream's head and the event with its hash) where the
baseline writes one, inside a `SECURITY DEFINER` function; where its time goes is in
[ordering](explanation/ordering.md#why-a-one-event-append-costs-more-than-a-raw-insert). The
"no flush wait" rows time the same one-connection appends with `synchronous_commit=off` on
every connection (evtool's, the raw inserts', message-db's): processor time and a round trip
alone. Against the raw insert the durable ratio is lower than that: this machine's virtual
disk flushes quickly only when the next flush follows close behind the last, so any append
that does more than a blind insert (message-db's included) pays the slow flush, and the ratio
swings with it (the same section, "Why the durable ratio is lower"). Against message-db the
durable ratio is the processor ratio: the gap is what evtool's append does that
`write_message` does not (the gap-safe reservation, the stream head, the hash chained inside
the database).""",
    "serve": """`evtool serve --threads 8` under `wrk -t2 -c64` on a store of 100,000 users, on durable SQLite
and PostgreSQL. Writes are compared with the raw one-row-per-transaction rate of the same disk
(SQLite) or raw single-row `INSERT`s over 8 connections (PostgreSQL), measured before and after;
reads with the same read through EvtoolKit in-process; `GET /healthz`, which touches neither
store nor token, shows what HTTP alone costs on the machine. When wrk runs on the same cores as
the server, the tail latency at 64 connections is the scheduler's as much as the server's.""",
    "crud": """`evtool serve --threads 8` on PostgreSQL against `crud/app.py` of the peer benchmarks
(`../shared/bench`): Starlette and asyncpg under uvicorn with 2 workers, one row per favorite
behind the same routes and bearer token, without a hash chain, gap-safe order, idempotency or
views. Both run on one durable PostgreSQL under the same wrk scripts
(`scripts/serve-favorite.lua`, `scripts/serve-favorites-read.lua`, 20,000 users, `-t2 -c64`),
in alternating rounds; each round starts each server afresh, so evtool's reads start with no
view in memory, right after the writes (targets: PUT ≥ 1.5×, GET ≥ 2×, lower p99). The rounds
share one store, which grows by about three favorites a user each round: a later round's
server loads longer streams and rewrites larger favorites documents, where the Python service
inserts one more row. The second block is the same harness again with evtool on the embedded
default, a durable SQLite file (`scripts/evtool-on-sqlite.sh` gives its `init` and `serve`
that store), against the same Python service on PostgreSQL.

The third block (`scripts/serve-vs-crud-cpu.sh`) says where the PUT rates on PostgreSQL come
from: the same PUTs on fresh databases, with the processor time each PUT costs the server (its
processes) and PostgreSQL (all its processes), each summed over the run and divided by the
requests. wrk, the server and PostgreSQL share the machine's 2 cores and keep them busy, so the
rate follows the processor time a PUT costs everyone. evtool's PUT (a group commit's share of
the append with its hash chain and gap-safe order, the user's favorites document, the kept
Merkle tree, idempotency) costs less processor time in all than the plain service's single
`INSERT` through Python, and evtool answers more PUTs by about the inverse of that share. The
1.5× target asks for about 0.6 of the plain service's processor time per PUT; what is measured
here is the figure to watch: the rate ratio moves with it. Where the PostgreSQL part goes, by
statement: the group's append about 60% (its stream-row locks and updates, the events' inserts
and the chain hashes), the favorites documents, loading the state of a user the new server has
not seen yet, and the kept Merkle tree; two group commits run at once, each carrying about 14
appends.""",
    "scale": """The same measurements at two sizes of the log (100,000 users at both, so each user's stream
grows with the log), with the large/small ratio against its target: per-user latencies should
stay flat (≤ 1.3×) and whole-log work (rebuild, verify) grow linearly (≤ 11× for 10× the
events). Latencies that grow with each user's own data, not with the log, are explained in
[scale](explanation/scale.md#what-grows-and-why).""",
    "import": """`evtool import` of an export (hashes included, so the import checks them) into a fresh SQLite
file, against a few lines of Python doing the least an import can (`json.loads` per line, one
`executemany` into a table of the same shape, in one transaction), alternating run by run
(target ≥ 1.0).""",
    "report": """`evtool report` with a release build: the page of a user with 10,000 actions (target < 1 s),
the store overview over 1,000,000 events (target < 10 s), and how long that user's page takes
to open in headless Chromium.""",
}

HEADER = """# Performance

The latest run of each benchmark: its command, the machine and its load, the output as
printed, and what it means. This file is written by `scripts/performance.sh` (all of them, or
`scripts/performance.sh NAME…` for some; `--list` names them); never edit a figure by hand.
Earlier runs are in git's history of this file.

Every figure is beside a baseline measured in the same run on the same machine: the best plain
use of the same library on the same rows. Ratios are what to compare across machines;
absolute rates follow the machine, its disk and its load (printed before and after each run).
`evtool-bench --help` describes every suite and option.
"""


def read_meta(path):
    meta = {}
    with open(path, encoding="utf-8") as handle:
        for line in handle:
            key, _, value = line.rstrip("\n").partition("=")
            meta[key] = value
    return meta


def existing_sections(path):
    if not os.path.exists(path):
        return {}
    text = open(path, encoding="utf-8").read()
    return {m.group(1): m.group(0) for m in re.finditer(r"<!-- bench:(\w+) -->.*?<!-- /bench:\1 -->", text, re.S)}


def section(name, meta, machine, output):
    lines = [f"<!-- bench:{name} -->", f"## {TITLES[name]}", ""]
    lines.append(f"`{meta['command']}`")
    lines.append("")
    lines.append(f"- run: {meta['started']} to {meta['finished']}, commit {machine['commit']}")
    lines.append(f"- machine: {machine['cores']} cores ({machine['cpu']}), {machine['memory']}, "
                 f"{machine['system']}, SQLite {machine['sqlite']}, PostgreSQL {machine['postgres'] or 'not installed'}")
    lines.append(f"- load average (1, 5, 15 min): {meta['load_before']} before, {meta['load_after']} after")
    lines.append("")
    lines.append("```")
    lines.append(output.rstrip("\n"))
    lines.append("```")
    lines.append("")
    lines.append(MEANING[name])
    lines.append(f"<!-- /bench:{name} -->")
    return "\n".join(lines)


def main():
    work, out, names = sys.argv[1], sys.argv[2], sys.argv[3:]
    machine = read_meta(os.path.join(work, "machine"))
    kept = existing_sections(out)
    parts = [HEADER.rstrip("\n"), "", "| benchmark | section |", "| --- | --- |"]
    for name in names:
        anchor = re.sub(r"[^\w\- ]", "", TITLES[name].lower()).replace(" ", "-")
        parts.append(f"| `{name}` | [{TITLES[name]}](#{anchor}) |")
    for name in names:
        parts.append("")
        meta_path = os.path.join(work, f"{name}.meta")
        if os.path.exists(meta_path):
            output = open(os.path.join(work, f"{name}.out"), encoding="utf-8").read()
            parts.append(section(name, read_meta(meta_path), machine, output))
        elif name in kept:
            parts.append(kept[name])
        else:
            parts.append(f"<!-- bench:{name} -->\n## {TITLES[name]}\n\nNot run yet: `scripts/performance.sh {name}`.\n\n{MEANING[name]}\n<!-- /bench:{name} -->")
    with open(out, "w", encoding="utf-8") as handle:
        handle.write("\n".join(parts) + "\n")


if __name__ == "__main__":
    main()
