# Shared functions of the Dog Journey rules: `include "journey";` or `import "journey" as j;`.
# Library functions read only their input and arguments (no `now`: pass the time in).

# {branch id: order} from the `branches` list; blocks of unknown branches sort last.
def branch_ranks: reduce .[] as $branch ({}; .[$branch.id] = $branch.order);

# The blocks the dog may start now (their computed status is "available").
def available_blocks: [.blocks[] | select(.status == "available")];

# The nearest of a list of blocks: lowest key first, then branch order, then position.
# `key` maps a block to the number that matters most (e.g. the dog's metric for its topic).
def nearest(key; $ranks): min_by([key, ($ranks[.branch] // 1000), .position]);

# Seconds since 1970 of an ISO 8601 date-time with `Z` or an offset such as `+01:00`
# (jq 1.6's fromdateiso8601 accepts only `Z`). Fractions of a second are ignored.
def iso_seconds:
  . as $text
  | ($text[19:] | if startswith(".") then .[(([indices("Z"), indices("+"), indices("-")] | add | min) // 0):] else . end) as $zone
  | ($text[0:19] + "Z" | fromdateiso8601)
    - (if $zone == "Z" or $zone == "" then 0
       else ($zone[0:1] + "1" | tonumber) * (($zone[1:3] | tonumber) * 3600 + ($zone[4:6] | tonumber) * 60)
       end);

# When a record was made, in seconds: the engine passes `recorded_ts`; fixtures may give only
# `recorded_at`.
def record_seconds: if .recorded_ts != null then .recorded_ts else .recorded_at | iso_seconds end;

# Records of one kind made in the `$seconds` up to `$now` (both in seconds; a rule passes a
# `duration` parameter as it reads it), one at a time: build each output in the same pass
# (`[recent_record(…) | {…}]`), which costs less than mapping the list `recent_records`
# collects (libjq 1.6 walks and copies it again).
# Written with nested `if`s: libjq 1.6 runs `select(a and b)` and `//` by backtracking, which
# made this filter cost ~3 µs per record against ~1 µs now (Today reads up to 100 per kind).
def recent_record($kind; $now; $seconds):
  ($now - $seconds) as $from
  | .records[]
  | if .kind != $kind then empty
    else record_seconds as $at
      | if $at > $now then empty elif $at < $from then empty else . end
    end;

# The records of `recent_record` as a list.
def recent_records($kind; $now; $seconds): [recent_record($kind; $now; $seconds)];
