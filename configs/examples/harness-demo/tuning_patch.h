#ifndef TUNING_H
#define TUNING_H
/* "Defensive" extra rounds: the regression the demo should catch. */
#define CHECKSUM_ROUNDS 12
#endif
