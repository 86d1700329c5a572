// The baseline of the rule benchmarks: libjq driven by a plain C loop, as fast as libjq goes.
// Compile once, then jq_start/jq_next on the input; no sandbox, no contract checks, no Swift.
#ifndef JOURNEY_JQ_BASELINE_H
#define JOURNEY_JQ_BASELINE_H

/// Evaluates `program` `iterations` times on one pre-built input (parsed once from
/// `input_json`), pulling every output. Returns nanoseconds per evaluation, or a negative
/// number when the program does not compile or the input does not parse.
/// `library_dir` (may be NULL) is where `import`/`include` look; `args_json` (may be NULL) is a
/// JSON object of the variables compiled in as constants (`{"params": {…}}`: a rule's `$params`).
double jqb_ns_per_eval_prebuilt(const char *program, const char *library_dir, const char *args_json,
                                const char *input_json, long iterations, long *outputs);

/// Like jqb_ns_per_eval_prebuilt, but parses `input_json` with jv_parse before every evaluation.
double jqb_ns_per_eval_from_text(const char *program, const char *library_dir, const char *args_json,
                                 const char *input_json, long iterations, long *outputs);

/// Milliseconds per jq_compile of `program`, averaged over `repetitions` fresh jq_states.
double jqb_ms_per_compile(const char *program, const char *library_dir, const char *args_json, int repetitions);

/// Nanoseconds per jv_parse of `input_json` (parse and free).
double jqb_ns_per_parse(const char *input_json, long iterations);

/// Bytes of heap in use (glibc's mallinfo2), for memory per compiled program.
unsigned long jqb_heap_in_use(void);

#endif
