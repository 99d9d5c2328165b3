#!/usr/bin/env python3
"""plant_pg.py FILE -- plant a proportional regression in a copy of
node-postgres's lib/query.js (scripts/gate-power.sh --client pg; never a
real install): a Query notes the time it is submitted, and at its
ReadyForQuery spins for PGCB_PLANT_PCT % of its own time (read once from the
environment; 0 or unset: no spin) -- from its submission or from the end of
the query before it on the connection, whichever is later: in a pipeline the
queries are all submitted at once, and a query's own time does not include
waiting behind the others -- so each query, and each batch, takes (1 +
PCT/100) times as long as it would have, whatever the machine's speed: the
same plant as libpq_sync_plant.so's PGCB_PLANT_PCT. Exits 1 with one line when
the file is not the shape this patch knows (a pg release that changed it)."""
import sys

path = sys.argv[1]
src = open(path).read()
marks = {
    "  submit(connection) {\n":
        "  submit(connection) {\n    this._pgcbPlantT0 = process.hrtime.bigint() // pgcb plant\n",
    "  handleReadyForQuery(con) {\n":
        "  handleReadyForQuery(con) {\n"
        "    if (PGCB_PLANT_FRACTION > 0 && this._pgcbPlantT0 !== undefined) { // pgcb plant\n"
        "      const now = process.hrtime.bigint()\n"
        "      const prev = con._pgcbPlantDone || 0n\n"
        "      const from = prev > this._pgcbPlantT0 ? prev : this._pgcbPlantT0\n"
        "      const until = now + BigInt(Math.round(Number(now - from) * PGCB_PLANT_FRACTION))\n"
        "      while (process.hrtime.bigint() < until) {}\n"
        "      con._pgcbPlantDone = process.hrtime.bigint()\n"
        "    }\n",
}
for old, new in marks.items():
    if src.count(old) != 1:
        print(f"plant_pg.py: {path}: no single '{old.strip()}' to plant in (pg changed?)",
              file=sys.stderr)
        sys.exit(1)
    src = src.replace(old, new, 1)
header = ("// pgcb plant (scripts/lib/plant_pg.py): PGCB_PLANT_PCT % of each query's time\n"
          "const PGCB_PLANT_FRACTION = (() => { const p = Number(process.env.PGCB_PLANT_PCT || 0);"
          " return p > 0 && p <= 1000 ? p / 100 : 0 })()\n")
first = src.index("\n") + 1 if src.startswith("'use strict'") else 0
src = src[:first] + header + src[first:]
open(path, "w").write(src)
