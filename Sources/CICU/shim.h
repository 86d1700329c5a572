// ICU (Debian's libicu-dev, pkg-config icu-i18n): CLDR plural rules, number and date formats.
// Number and date formats are `void *` here (ICU's are `void *` typedefs Swift would import as
// pointers to pointers). ICU's headers rename every function to carry the library's version (uplrules_open_72), so
// the few functions the engine calls are wrapped here under stable names.
#ifndef JOURNEY_CICU_SHIM_H
#define JOURNEY_CICU_SHIM_H

#include <unicode/udat.h>
#include <unicode/udatpg.h>
#include <unicode/uenum.h>
#include <unicode/unum.h>
#include <unicode/upluralrules.h>
#include <unicode/uloc.h>

static inline UPluralRules *journey_uplrules_open(const char *locale, UErrorCode *status) {
    return uplrules_openForType(locale, UPLURAL_TYPE_CARDINAL, status);
}
static inline int32_t journey_uplrules_select(
    const UPluralRules *rules, double number, UChar *keyword, int32_t capacity, UErrorCode *status) {
    return uplrules_select(rules, number, keyword, capacity, status);
}
static inline int32_t journey_uplrules_select_formatted(
    const UPluralRules *rules, const void *format, double number, UChar *keyword, int32_t capacity,
    UErrorCode *status) {
    return uplrules_selectWithFormat(rules, number, format, keyword, capacity, status);
}
static inline UEnumeration *journey_uplrules_keywords(const UPluralRules *rules, UErrorCode *status) {
    return uplrules_getKeywords(rules, status);
}
static inline void journey_uplrules_close(UPluralRules *rules) { uplrules_close(rules); }

static inline const char *journey_uenum_next(UEnumeration *en, int32_t *length, UErrorCode *status) {
    return uenum_next(en, length, status);
}
static inline void journey_uenum_close(UEnumeration *en) { uenum_close(en); }

static inline void *journey_unum_open_decimal(const char *locale, UErrorCode *status) {
    return unum_open(UNUM_DECIMAL, NULL, 0, locale, NULL, status);
}
static inline void journey_unum_set_fraction_digits(void *format, int32_t minimum, int32_t maximum) {
    unum_setAttribute(format, UNUM_MIN_FRACTION_DIGITS, minimum);
    unum_setAttribute(format, UNUM_MAX_FRACTION_DIGITS, maximum);
}
static inline int32_t journey_unum_format_double(
    const void *format, double number, UChar *result, int32_t capacity, UErrorCode *status) {
    return unum_formatDouble(format, number, result, capacity, NULL, status);
}
static inline void journey_unum_close(void *format) { unum_close(format); }

/// A date format for the best pattern of `skeleton` (`dMMMM`, `EEEE`) in `locale` and `zone`.
static inline void *journey_udat_open_skeleton(
    const char *locale, const UChar *skeleton, int32_t skeletonLength, const UChar *zone, int32_t zoneLength,
    UErrorCode *status) {
    UDateTimePatternGenerator *generator = udatpg_open(locale, status);
    if (U_FAILURE(*status)) return NULL;
    UChar pattern[128];
    int32_t length = udatpg_getBestPattern(generator, skeleton, skeletonLength, pattern, 128, status);
    udatpg_close(generator);
    if (U_FAILURE(*status)) return NULL;
    return udat_open(UDAT_PATTERN, UDAT_PATTERN, locale, zone, zoneLength, pattern, length, status);
}
static inline int32_t journey_udat_format(
    const void *format, double millis, UChar *result, int32_t capacity, UErrorCode *status) {
    return udat_format(format, millis, result, capacity, NULL, status);
}
/// Weekday `index` (1 Sunday … 7 Saturday): standalone, `wide` (понедельник) or short (пн).
static inline int32_t journey_udat_weekday(
    const void *format, int32_t index, int wide, UChar *result, int32_t capacity, UErrorCode *status) {
    UDateFormatSymbolType type = wide ? UDAT_STANDALONE_WEEKDAYS : UDAT_STANDALONE_SHORT_WEEKDAYS;
    return udat_getSymbols(format, type, index, result, capacity, status);
}
static inline void journey_udat_close(void *format) { udat_close(format); }

static inline int journey_u_failure(UErrorCode status) { return U_FAILURE(status); }
static inline const char *journey_u_error_name(UErrorCode status) { return u_errorName(status); }

#endif
