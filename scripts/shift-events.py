"""Moves example events by whole days so that the latest is within the last day (the service
refuses events older than 7 days); birth dates move with them, so the dogs keep their ages.

    python3 scripts/shift-events.py SOURCE.jsonl TARGET.jsonl
"""
import datetime as dt
import json
import sys

source, target = sys.argv[1], sys.argv[2]
events = [json.loads(line) for line in open(source, encoding="utf-8") if line.strip()]


def parse(text):
    return dt.datetime.fromisoformat(text.replace("Z", "+00:00"))


now = dt.datetime.now(dt.timezone.utc)
latest = max(parse(event["occurred_at"]) for event in events)
shift = dt.timedelta(days=(now - latest).days)
with open(target, "w", encoding="utf-8") as out:
    for event in events:
        event["occurred_at"] = (parse(event["occurred_at"]) + shift).isoformat()
        payload = event.get("payload") or {}
        if "birth_date" in payload:
            payload["birth_date"] = (dt.date.fromisoformat(payload["birth_date"]) + shift).isoformat()
        out.write(json.dumps(event) + "\n")
