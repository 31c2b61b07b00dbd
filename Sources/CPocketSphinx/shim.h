#include <stdio.h>
#include <pocketsphinx.h>
#include <sphinxbase/err.h>
#include <sphinxbase/logmath.h>
#include <sphinxbase/cmd_ln.h>
/* malloc_trim, which Swift's Glibc module does not import: a recognizer gives its freed decoder's heap
   back to the system. */
#include <malloc.h>
