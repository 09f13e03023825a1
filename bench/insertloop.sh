#!/usr/bin/env bash
# What one INSERT of a return with every searchable member filled costs
# PostgreSQL, the HTTP service left out (docs/performance.md, search index
# upkeep on PostgreSQL): N single-row INSERTs into TABLE in a DO loop, in
# one session, each a statement of its own (a generated column's
# expression is rebuilt per statement); prints µs per INSERT. TABLE is a
# migrated database's returns, or a copy made to compare (a copy without
# the search columns, say); the rows stay, under a team named "loop".
#
#   bench/insertloop.sh 'postgres://postgres@127.0.0.1:5432/records?sslmode=disable' returns 4000
set -euo pipefail
url=$1 table=$2 n=${3:-4000}
psql "$url" -qAt -v ON_ERROR_STOP=1 2>&1 <<SQL | sed -n 's/.*us=/ /p'
DO \$\$
DECLARE t0 timestamptz; team bigint;
BEGIN
  SELECT id INTO team FROM teams WHERE name = 'loop';
  IF team IS NULL THEN INSERT INTO teams (name, created_at) VALUES ('loop', now()) RETURNING id INTO team; END IF;
  t0 := clock_timestamp();
  FOR i IN 1..$n LOOP
    INSERT INTO $table (id, team_id, rma, serial_number, customer_email, issue, description)
    VALUES (gen_random_uuid()::text, team, 'RMA-2026-0042', 'SN-7731-AX-0042', 'jane.doe@example.com',
      'Widget arrived with a cracked housing and a loose hinge',
      'The customer reports that the widget stopped working after two days; the housing is cracked near the hinge, '
      'the display flickers, and the charger gets warm. Replacement requested under warranty.');
  END LOOP;
  RAISE NOTICE 'us=%', round(extract(epoch FROM clock_timestamp() - t0) * 1e6 / $n, 1);
END \$\$;
SQL
