/* Two libraries opened on first use that cannot be: the test of lazy_library.h's messages. */

/* Functions no library has, which the probes look up. */
int pianola_probe_function(int value);
int pianola_probe_other_function(int value);

/* lazy_library_open of a soname no system has: NULL or the one-line reason. Any thread. */
const char *probe_open_missing_library(void);

/* lazy_library_open of libm.so.6, which has no pianola_probe_other_function. Any thread. */
const char *probe_open_library_without_function(void);
