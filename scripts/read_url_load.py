# Load for `scripts/bench read-url` (issue 45, read scaling): W writer threads post 10-event
# batches of walks for their own dog and read its `today` right after each write; R reader
# threads read `today` of dogs that do not write. The primary's pg_stat_replication is sampled
# every 50 ms. Prints one JSON line: throughput, replay lag, the views by the server read.
# Usage: read_url_load.py PORT PRIMARY_URL SECONDS WRITERS READERS
import json, subprocess, sys, threading, time, urllib.request, uuid

port, primary, seconds, writers, readers = sys.argv[1], sys.argv[2], float(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5])
base = f"http://127.0.0.1:{port}"
stop = time.time() + seconds
counts = {"writes": 0, "own_views": 0, "other_views": 0, "errors": 0}
lock = threading.Lock()

def call(method, path, body=None):
    data = json.dumps(body).encode() if body is not None else None
    request = urllib.request.Request(base + path, data=data, method=method, headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=30) as response:
        return response.status, response.read()

def register(user, dog):
    call("POST", "/v1/dogs", {"dog_id": dog, "user_id": user, "name": "R", "age_range": "4-8m", "breed": "border_collie",
                              "timezone": "UTC", "metrics": {"impulse_control": 22, "bond": 55, "body_condition": 60, "recall": 40}})

def now():
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())

def writer(index):
    user, dog = f"lw-{index}", f"lwd-{index}"
    register(user, dog)
    while time.time() < stop:
        try:
            events = [{"event_id": uuid.uuid4().hex, "user_id": user, "dog_id": dog, "type": "walk_completed",
                       "occurred_at": now(), "payload": {"distance_km": 1}} for _ in range(10)]
            call("POST", "/v1/events", {"events": events})
            call("GET", f"/v1/dogs/{dog}/today")
            with lock:
                counts["writes"] += 1
                counts["own_views"] += 1
        except Exception as error:
            with lock: counts["errors"] += 1

def reader(index):
    dogs = [(f"lr-{index}-{k}", f"lrd-{index}-{k}") for k in range(5)]
    for user, dog in dogs: register(user, dog)
    k = 0
    while time.time() < stop:
        try:
            call("GET", f"/v1/dogs/{dogs[k % 5][1]}/today")
            k += 1
            with lock: counts["other_views"] += 1
        except Exception:
            with lock: counts["errors"] += 1

def metrics():
    _, text = call("GET", "/metrics")
    out = {}
    for line in text.decode().splitlines():
        if line.startswith('journey_view_reads_total{source="'):
            out[line.split('"')[1]] = float(line.split()[-1])
    return out

sampler = subprocess.Popen(["psql", "-At", "-F", " ", primary], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
sampler.stdin.write("SELECT coalesce(extract(epoch from replay_lag), 0), pg_wal_lsn_diff(pg_current_wal_lsn(), replay_lsn) FROM pg_stat_replication;\n\\watch 0.05\n")
sampler.stdin.flush()
threads = [threading.Thread(target=writer, args=(i,)) for i in range(writers)] + [threading.Thread(target=reader, args=(i,)) for i in range(readers)]
time.sleep(1)
before = metrics()
started = time.time()
for t in threads: t.start()
for t in threads: t.join()
elapsed = time.time() - started
after = metrics()
sampler.kill()
samples = []
for line in sampler.stdout.read().splitlines():
    parts = line.split()
    if len(parts) == 2:
        try: samples.append((float(parts[0]), float(parts[1])))
        except ValueError: pass
def pct(values, p):
    values = sorted(values)
    return values[min(len(values) - 1, int(p * len(values)))] if values else float("nan")
lags = [s[0] * 1000 for s in samples]
bytes_ = [s[1] for s in samples]
views = {k: after.get(k, 0) - before.get(k, 0) for k in after}
total = sum(views.values())
print(json.dumps({"seconds": round(elapsed, 1), **counts, "events_per_s": round(counts["writes"] * 10 / elapsed),
                  "views_per_s": round((counts["own_views"] + counts["other_views"]) / elapsed),
                  "samples": len(samples), "replay_lag_ms_p50": round(pct(lags, .5), 2), "p99": round(pct(lags, .99), 2),
                  "max": round(max(lags or [0]), 2), "bytes_behind_p50": pct(bytes_, .5), "bytes_behind_max": max(bytes_ or [0]),
                  "views": views, "standby_share": round(views.get("standby", 0) / total, 3) if total else None}))
