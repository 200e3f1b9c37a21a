#!/usr/bin/env python3
"""Prints the SQL of the PostgreSQL store's frozen migrations for one schema, as the store runs
them (each with its schema_version update, in one transaction): versions FROM+1 through TO.

    Benchmarks/partitions/render.py SCHEMA TO [FROM]

Read from the Swift sources (Sources/StorePostgres/PostgresMigration+*.swift), so that the
benchmarks below can make a store at schema 9 beside one at schema 10 on the same server."""
import os
os.chdir(os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..'))
import re,sys
schema=sys.argv[1]
import glob
files=sorted(glob.glob('Sources/StorePostgres/PostgresMigration+*.swift'))
t={}
for f in files:
    s=open(f).read()
    for m in re.finditer(r'static let version(\d+) = PostgresMigration\(version: \d+, name: "[^"]*", template: #"""\n(.*?)"""#\)', s, re.S):
        t[int(m.group(1))]=m.group(2)
upto=int(sys.argv[2]); start=int(sys.argv[3]) if len(sys.argv)>3 else 0
out=[]
for v in range(start+1, upto+1):
    sql=t[v].replace('{{schema}}','"%s"'%schema).replace('{{schema_name}}',schema).replace('{{lock_key}}','12345')
    out.append(sql+"\nUPDATE \"%s\".schema_version SET version = %d;\n"%(schema,v))
print("BEGIN;\n"+"\n".join(out)+"\nCOMMIT;")
