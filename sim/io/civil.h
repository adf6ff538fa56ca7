/* SPDX-License-Identifier: Apache-2.0 */
/*
 * civil.h - calendar arithmetic for the readers of dates: the RFC 3339
 * times of Kubernetes objects (io/k8s) and the dates and times of public
 * cluster traces (io/trace/convert.c). Each reader parses its own forms;
 * the day count is this one.
 */
#ifndef GS_CIVIL_H
#define GS_CIVIL_H

#include <stdint.h>

/*
 * Days from 1970-01-01 to the civil date y-m-d of the proleptic Gregorian
 * calendar (negative before 1970); m is 1 to 12 and d 1 to 31, checked by
 * the caller. Shifting the year to start in March puts the leap day last,
 * so a day of the year is a linear function of the month.
 */
static inline int64_t gs_civil_days(int64_t y, int64_t m, int64_t d)
{
	int64_t era, yoe, doy, doe;

	y -= m <= 2;
	era = (y >= 0 ? y : y - 399) / 400;
	yoe = y - era * 400;
	doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
	doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
	return era * 146097 + doe - 719468;
}

#endif
