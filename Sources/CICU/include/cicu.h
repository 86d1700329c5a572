// ICU (Debian's libicu-dev, linked as icui18n and icuuc): CLDR plural rules, number and date
// formats, behind plain C types (handles are `void *`, UTF-16 is `uint16_t`, an ICU error code
// `int32_t`, 0 for none): see icu.c for why.
#ifndef JOURNEY_CICU_H
#define JOURNEY_CICU_H

#include <stdint.h>

void *journey_uplrules_open(const char *locale, int32_t *status);
int32_t journey_uplrules_select(const void *rules, double number, uint16_t *keyword, int32_t capacity, int32_t *status);
/// The plural keyword of `number` as `format` writes it (1.5 → other in Russian).
int32_t journey_uplrules_select_formatted(
    const void *rules, const void *format, double number, uint16_t *keyword, int32_t capacity, int32_t *status);
/// The rules' keywords, an enumeration read with journey_uenum_next.
void *journey_uplrules_keywords(const void *rules, int32_t *status);
void journey_uplrules_close(void *rules);

const char *journey_uenum_next(void *enumeration, int32_t *length, int32_t *status);
void journey_uenum_close(void *enumeration);

void *journey_unum_open_decimal(const char *locale, int32_t *status);
void journey_unum_set_fraction_digits(void *format, int32_t minimum, int32_t maximum);
int32_t journey_unum_format_double(
    const void *format, double number, uint16_t *result, int32_t capacity, int32_t *status);
void journey_unum_close(void *format);

/// A date format for the best pattern of `skeleton` (`dMMMM`, `EEEE`) in `locale` and `zone`.
void *journey_udat_open_skeleton(
    const char *locale, const uint16_t *skeleton, int32_t skeletonLength, const uint16_t *zone, int32_t zoneLength,
    int32_t *status);
int32_t journey_udat_format(const void *format, double millis, uint16_t *result, int32_t capacity, int32_t *status);
/// Weekday `index` (1 Sunday … 7 Saturday), stand-alone: `wide` (понедельник) or short (пн).
int32_t journey_udat_weekday(
    const void *format, int32_t index, int wide, uint16_t *result, int32_t capacity, int32_t *status);
void journey_udat_close(void *format);

int journey_u_failure(int32_t status);
const char *journey_u_error_name(int32_t status);

#endif
