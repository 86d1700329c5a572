// The engine's calls into ICU (Debian's libicu-dev). Only this file sees ICU's headers: the
// Swift toolchain's Foundation carries its own ICU, whose declarations clash with the system's
// in one Swift module, so the header Swift reads (include/cicu.h) uses plain C types. ICU's
// headers also rename every function to carry the library's version (uplrules_open_72); the
// names here stay the same across versions.
#include "cicu.h"

#include <unicode/udat.h>
#include <unicode/udatpg.h>
#include <unicode/uenum.h>
#include <unicode/unum.h>
#include <unicode/upluralrules.h>
#include <unicode/utypes.h>


void *journey_uplrules_open(const char *locale, int32_t *status) {
    return uplrules_openForType(locale, UPLURAL_TYPE_CARDINAL, status);
}
int32_t journey_uplrules_select(
    const void *rules, double number, uint16_t *keyword, int32_t capacity, int32_t *status) {
    return uplrules_select(rules, number, keyword, capacity, (UErrorCode *)status);
}
int32_t journey_uplrules_select_formatted(
    const void *rules, const void *format, double number, uint16_t *keyword, int32_t capacity,
    int32_t *status) {
    return uplrules_selectWithFormat(rules, number, format, keyword, capacity, (UErrorCode *)status);
}
void *journey_uplrules_keywords(const void *rules, int32_t *status) {
    return uplrules_getKeywords(rules, (UErrorCode *)status);
}
void journey_uplrules_close(void *rules) { uplrules_close(rules); }

const char *journey_uenum_next(void *en, int32_t *length, int32_t *status) {
    return uenum_next(en, length, (UErrorCode *)status);
}
void journey_uenum_close(void *en) { uenum_close(en); }

void *journey_unum_open_decimal(const char *locale, int32_t *status) {
    return unum_open(UNUM_DECIMAL, NULL, 0, locale, NULL, (UErrorCode *)status);
}
void journey_unum_set_fraction_digits(void *format, int32_t minimum, int32_t maximum) {
    unum_setAttribute(format, UNUM_MIN_FRACTION_DIGITS, minimum);
    unum_setAttribute(format, UNUM_MAX_FRACTION_DIGITS, maximum);
}
int32_t journey_unum_format_double(
    const void *format, double number, uint16_t *result, int32_t capacity, int32_t *status) {
    return unum_formatDouble(format, number, result, capacity, NULL, (UErrorCode *)status);
}
void journey_unum_close(void *format) { unum_close(format); }

// A date format for the best pattern of `skeleton` (`dMMMM`, `EEEE`) in `locale` and `zone`.
void *journey_udat_open_skeleton(
    const char *locale, const uint16_t *skeleton, int32_t skeletonLength, const uint16_t *zone, int32_t zoneLength,
    int32_t *status) {
    UDateTimePatternGenerator *generator = udatpg_open(locale, (UErrorCode *)status);
    if (U_FAILURE(*status)) return NULL;
    UChar pattern[128];
    int32_t length = udatpg_getBestPattern(generator, skeleton, skeletonLength, pattern, 128, (UErrorCode *)status);
    udatpg_close(generator);
    if (U_FAILURE(*status)) return NULL;
    return udat_open(UDAT_PATTERN, UDAT_PATTERN, locale, zone, zoneLength, pattern, length, (UErrorCode *)status);
}
int32_t journey_udat_format(
    const void *format, double millis, uint16_t *result, int32_t capacity, int32_t *status) {
    return udat_format(format, millis, result, capacity, NULL, (UErrorCode *)status);
}
// Weekday `index` (1 Sunday … 7 Saturday): standalone, `wide` (понедельник) or short (пн).
int32_t journey_udat_weekday(
    const void *format, int32_t index, int wide, uint16_t *result, int32_t capacity, int32_t *status) {
    UDateFormatSymbolType type = wide ? UDAT_STANDALONE_WEEKDAYS : UDAT_STANDALONE_SHORT_WEEKDAYS;
    return udat_getSymbols(format, type, index, result, capacity, (UErrorCode *)status);
}
void journey_udat_close(void *format) { udat_close(format); }

int journey_u_failure(int32_t status) { return U_FAILURE(status); }
const char *journey_u_error_name(int32_t status) { return u_errorName((UErrorCode)status); }

