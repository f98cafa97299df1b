#!/usr/bin/env python3
"""Would a narrower token index, or decision records keyed by an integer, make ValidateToken's
lookup cheaper? An experiment on a copy of a store_bench dataset, not a change to verdict
(bench/PERFORMANCE.md, "Issue 21: ValidateToken on a quiet host" and "the records' key").

ValidateToken finds an agent's decision record by its token's SHA-256: a search of
agents_by_token_hash (32-byte keys with the agent id beside each), then of decision_records by
agent id. This script adds to a copy of the dataset what a narrower lookup would need, an
integer key of the hash's first 7 bytes with its own index, and the full hash in each decision
record so that the lookup still compares all 32 bytes, then times each way of finding the
records of every agent once, in a random order. Each variant is one SQL statement that joins a
table of probes to the lookups, so that SQLite's own search is timed without any per-call cost
of Python's: per lookup, it is the B-tree searches and the reading of the record's columns
(the same libsqlite3 verdict links, memory-mapped as verdictd reads).

The second question: decision_records is a WITHOUT ROWID table, an index B-tree whose interior
pages hold whole rows (about 690 bytes), so at 50,000 agents it is seven levels deep. The copy
also gets the same records in a rowid table with an integer key, the token's hash in each
record and an index each on the agent id and on the token's hash (what version 19 of a branch
measured at stop 26 built), and times the lookups through it.

  python3 bench/token_index_experiment.py /tmp/verdict-bench/dataset-...-agents50000.db
"""

import argparse
import os
import random
import shutil
import sqlite3
import statistics
import tempfile
import time

READ_RECORD = "sum(length(r.agent) + length(r.permissions) + length(r.delegations_into))"
# CROSS JOIN keeps the probes outside: one search per probe, in the probes' random order.
VARIANTS = {
    # What verdict runs today (store/statements.cc, FindDecisionRecordByTokenHash).
    "token hash index, then the record": (
        f"SELECT {READ_RECORD} FROM probes p"
        " CROSS JOIN agents a INDEXED BY agents_by_token_hash CROSS JOIN decision_records r"
        " WHERE a.token_hash = p.token_hash AND r.agent_id = a.id"),
    # The narrower index; the record's copy of the hash is compared before a row counts.
    "7-byte integer key index, then the record": (
        f"SELECT {READ_RECORD} FROM probes p"
        " CROSS JOIN agents a INDEXED BY agents_by_token_key CROSS JOIN decision_records r"
        " WHERE a.token_key = p.token_key AND r.agent_id = a.id"
        " AND r.token_hash = p.token_hash"),
    # Authorize's lookup: the record alone, by agent id.
    "the record by agent id": (
        f"SELECT {READ_RECORD} FROM probes p CROSS JOIN decision_records r"
        " WHERE r.agent_id = p.agent_id"),
    # The searches alone, reading no record.
    "token hash index alone": (
        "SELECT count(a.id) FROM probes p CROSS JOIN agents a INDEXED BY agents_by_token_hash"
        " WHERE a.token_hash = p.token_hash"),
    "7-byte integer key index alone": (
        "SELECT count(a.id) FROM probes p CROSS JOIN agents a INDEXED BY agents_by_token_key"
        " WHERE a.token_key = p.token_key"),
    # The records keyed by an integer: an index search, then the record by its key.
    "keyed records: token hash index, then the record": (
        f"SELECT {READ_RECORD} FROM probes p"
        " CROSS JOIN keyed_records r INDEXED BY keyed_records_by_token_hash"
        " WHERE r.token_hash = p.token_hash"),
    "keyed records: agent id index, then the record": (
        f"SELECT {READ_RECORD} FROM probes p"
        " CROSS JOIN keyed_records r INDEXED BY keyed_records_by_agent"
        " WHERE r.agent_id = p.agent_id"),
    "the record's search alone": (
        "SELECT count(r.agent_id) FROM probes p CROSS JOIN decision_records r"
        " WHERE r.agent_id = p.agent_id"),
}


def token_key(token_hash):
    """The hash's first 7 bytes as a non-negative integer (56 bits: no sign to get wrong)."""
    return int.from_bytes(token_hash[:7], "big")


def connect(path):
    connection = sqlite3.connect(path, isolation_level=None)
    # As verdictd's connections read (store/sqlite/schema.cc, SqliteOptions::mmap_bytes).
    connection.execute("PRAGMA cache_size = -16384")
    connection.execute("PRAGMA mmap_size = 2147483648")
    return connection


def prepare(db):
    db.execute("ALTER TABLE agents ADD COLUMN token_key INTEGER")
    db.execute("ALTER TABLE decision_records ADD COLUMN token_hash BLOB")
    db.execute("BEGIN")
    rows = db.execute("SELECT rowid, token_hash FROM agents").fetchall()
    db.executemany("UPDATE agents SET token_key = ? WHERE rowid = ?",
                   [(token_key(h), rowid) for rowid, h in rows])
    db.execute("UPDATE decision_records SET token_hash ="
               " (SELECT a.token_hash FROM agents a WHERE a.id = decision_records.agent_id)")
    db.execute("CREATE INDEX agents_by_token_key ON agents (token_key, id)")
    db.execute("CREATE TABLE keyed_records (record_key INTEGER PRIMARY KEY,"
               " agent_id TEXT NOT NULL, token_hash BLOB NOT NULL, agent TEXT NOT NULL,"
               " permissions TEXT NOT NULL, delegations_into TEXT NOT NULL)")
    db.execute("INSERT INTO keyed_records (agent_id, token_hash, agent, permissions,"
               " delegations_into) SELECT a.id, a.token_hash, r.agent, r.permissions,"
               " r.delegations_into FROM agents a JOIN decision_records r ON r.agent_id = a.id"
               " ORDER BY a.rowid")
    db.execute("CREATE UNIQUE INDEX keyed_records_by_agent ON keyed_records (agent_id)")
    db.execute("CREATE UNIQUE INDEX keyed_records_by_token_hash ON keyed_records (token_hash)")
    db.execute("COMMIT")
    db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    for name, size in db.execute(
            "SELECT name, sum(pgsize) FROM dbstat WHERE name IN ('agents_by_token_hash',"
            " 'agents_by_token_key', 'decision_records', 'keyed_records',"
            " 'keyed_records_by_agent', 'keyed_records_by_token_hash')"
            " GROUP BY name ORDER BY name"):
        print(f"{name}: {size / 1048576:.2f} MiB")
    for name in ("decision_records", "keyed_records"):
        interior, depth = db.execute(
            "SELECT sum(pagetype = 'internal'), max(length(path) - length(replace(path, '/', '')))"
            " FROM dbstat WHERE name = ?", (name,)).fetchone()
        print(f"{name}: {interior} interior pages, {depth} levels")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("dataset", help="a store_bench dataset file (it is copied, not changed)")
    parser.add_argument("--rounds", type=int, default=7)
    args = parser.parse_args()

    scratch = tempfile.mkdtemp(prefix="verdict-token-index.")
    try:
        path = os.path.join(scratch, "copy.db")
        shutil.copyfile(args.dataset, path)
        db = connect(path)
        prepare(db)
        agents = db.execute("SELECT id, token_hash, token_key FROM agents").fetchall()
        rng = random.Random(1)
        rng.shuffle(agents)
        db.execute("CREATE TEMP TABLE probes (n INTEGER PRIMARY KEY, agent_id TEXT,"
                   " token_hash BLOB, token_key INTEGER)")
        db.executemany("INSERT INTO temp.probes (agent_id, token_hash, token_key)"
                       " VALUES (?, ?, ?)", agents)
        for name, sql in VARIANTS.items():
            plan = "; ".join(step[3] for step in db.execute("EXPLAIN QUERY PLAN " + sql))
            print(f"{name}: {plan}")

        micros = {name: [] for name in VARIANTS}
        answers = {}
        for _ in range(args.rounds):
            order = list(VARIANTS.items())
            rng.shuffle(order)
            for name, sql in order:
                started = time.perf_counter()
                answers.setdefault(name, set()).add(db.execute(sql).fetchone()[0])
                micros[name].append((time.perf_counter() - started) / len(agents) * 1e6)
        # Every record was found by each way that reads them, and the same records.
        read = {value for name, values in answers.items() if "alone" not in name
                for value in values}
        if len(read) != 1:
            raise SystemExit(f"the variants read different records: {answers}")
        print(f"us per lookup, median (min to max) of {args.rounds} rounds of {len(agents)}:")
        for name, values in micros.items():
            print(f"  {name}: {statistics.median(values):.3f}"
                  f" ({min(values):.3f} to {max(values):.3f})")
    finally:
        shutil.rmtree(scratch)


if __name__ == "__main__":
    main()
