#include "JQBaseline.h"

#include <jq.h>
#include <malloc.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

static double now_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e9 + (double)t.tv_nsec;
}

static void ignore_message(void *data, jv message) {
    (void)data;
    jv_free(message);
}

static jq_state *compile(const char *program, const char *library_dir, const char *args_json) {
    jq_state *jq = jq_init();
    if (!jq) return NULL;
    jq_set_error_cb(jq, ignore_message, NULL);
    jv search = jv_array();
    if (library_dir) search = jv_array_append(search, jv_string(library_dir));
    jq_set_attr(jq, jv_string("JQ_LIBRARY_PATH"), search);  // consumes key and value
    jv args = args_json ? jv_parse(args_json) : jv_object();
    if (jv_get_kind(args) != JV_KIND_OBJECT) {
        jv_free(args);
        jq_teardown(&jq);
        return NULL;
    }
    if (!jq_compile_args(jq, program, args)) {  // consumes the arguments
        jq_teardown(&jq);
        return NULL;
    }
    return jq;
}

/// Runs one evaluation, consuming `input`; returns the number of outputs.
static long evaluate(jq_state *jq, jv input) {
    long count = 0;
    jq_start(jq, input, 0);
    for (;;) {
        jv output = jq_next(jq);
        if (!jv_is_valid(output)) {
            jv_free(output);
            return count;
        }
        count++;
        jv_free(output);
    }
}

double jqb_ns_per_eval_prebuilt(const char *program, const char *library_dir, const char *args_json,
                                const char *input_json, long iterations, long *outputs) {
    jq_state *jq = compile(program, library_dir, args_json);
    if (!jq) return -1;
    jv input = jv_parse(input_json);
    if (!jv_is_valid(input)) {
        jv_free(input);
        jq_teardown(&jq);
        return -2;
    }
    long total = 0;
    double start = now_ns();
    for (long i = 0; i < iterations; i++) total += evaluate(jq, jv_copy(input));
    double elapsed = now_ns() - start;
    if (outputs) *outputs = total;
    jv_free(input);
    jq_teardown(&jq);
    return elapsed / (double)iterations;
}

double jqb_ns_per_eval_from_text(const char *program, const char *library_dir, const char *args_json,
                                 const char *input_json, long iterations, long *outputs) {
    jq_state *jq = compile(program, library_dir, args_json);
    if (!jq) return -1;
    int length = (int)strlen(input_json);
    long total = 0;
    double start = now_ns();
    for (long i = 0; i < iterations; i++) total += evaluate(jq, jv_parse_sized(input_json, length));
    double elapsed = now_ns() - start;
    if (outputs) *outputs = total;
    jq_teardown(&jq);
    return elapsed / (double)iterations;
}

double jqb_ms_per_compile(const char *program, const char *library_dir, const char *args_json, int repetitions) {
    double start = now_ns();
    for (int i = 0; i < repetitions; i++) {
        jq_state *jq = compile(program, library_dir, args_json);
        if (!jq) return -1;
        jq_teardown(&jq);
    }
    return (now_ns() - start) / 1e6 / repetitions;
}

double jqb_ns_per_parse(const char *input_json, long iterations) {
    int length = (int)strlen(input_json);
    double start = now_ns();
    for (long i = 0; i < iterations; i++) jv_free(jv_parse_sized(input_json, length));
    return (now_ns() - start) / (double)iterations;
}

unsigned long jqb_heap_in_use(void) {
    return (unsigned long)mallinfo2().uordblks;
}
