#include <opus.h>
