/* sc_clock: the one clock (monotonic seconds) for deadlines, timeouts and
 * the timings in reports. */
#ifndef SC_CLOCK_H
#define SC_CLOCK_H

/* Seconds since an arbitrary fixed point; never goes backwards. */
double sc_clock_now(void);

#endif
