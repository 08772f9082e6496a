#ifndef TUNING_H
#define TUNING_H
#define CHECKSUM_ROUNDS 10
#endif
