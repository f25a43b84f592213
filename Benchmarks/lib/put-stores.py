"""Makes the stores s0 ... s<COUNT-1> on a server at 127.0.0.1:PORT with PUT /stores/{id}, on one
keep-alive connection; fails on any answer but 200 or 201. Used by the benchmark scripts that
spread requests over many stores.

    python3 Benchmarks/lib/put-stores.py PORT COUNT
"""
import http.client
import sys

port, count = int(sys.argv[1]), int(sys.argv[2])
connection = http.client.HTTPConnection("127.0.0.1", port)
for n in range(count):
    connection.request("PUT", f"/stores/s{n}")
    answer = connection.getresponse()
    answer.read()
    if answer.status not in (200, 201):
        sys.exit(f"PUT /stores/s{n} answered {answer.status}")
