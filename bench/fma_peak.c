/* Measured f32 FMA peak of this machine: every core runs independent
 * chains of vector fused multiply-adds (enough accumulators to cover FMA
 * latency times the number of FMA pipes), and the total GFLOP/s is
 * printed. Built by bench/llvmcpu_matmul.py with `cc -O2 -march=native`.
 *
 *   fma_peak [threads] [seconds]
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#if defined(__AVX512F__)
#define LANES 16
#elif defined(__AVX__)
#define LANES 8
#else
#define LANES 4
#endif
#define NACC 16

typedef float vec __attribute__((vector_size(LANES * 4)));

static double seconds;
static pthread_barrier_t barrier;
static volatile float sink;

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + t.tv_nsec * 1e-9;
}

/* run performs FMA rounds of NACC independent chains until the time is
 * up and returns the number of rounds. */
static long run(void) {
  vec acc[NACC], m, a;
  for (int i = 0; i < LANES; i++) {
    m[i] = 0.99999f;
    a[i] = 1e-6f;
  }
  for (int j = 0; j < NACC; j++) acc[j] = m * (float)(j + 1);
  long rounds = 0;
  double end = now() + seconds;
  do {
    for (int it = 0; it < 1024; it++) {
      /* Written out so the accumulators stay in registers; each line
       * contracts to one FMA (GNU C's default -ffp-contract=fast). */
      acc[0] = acc[0] * m + a; acc[1] = acc[1] * m + a; acc[2] = acc[2] * m + a; acc[3] = acc[3] * m + a;
      acc[4] = acc[4] * m + a; acc[5] = acc[5] * m + a; acc[6] = acc[6] * m + a; acc[7] = acc[7] * m + a;
      acc[8] = acc[8] * m + a; acc[9] = acc[9] * m + a; acc[10] = acc[10] * m + a; acc[11] = acc[11] * m + a;
      acc[12] = acc[12] * m + a; acc[13] = acc[13] * m + a; acc[14] = acc[14] * m + a; acc[15] = acc[15] * m + a;
    }
    rounds += 1024;
  } while (now() < end);
  float s = 0;
  for (int j = 0; j < NACC; j++) s += acc[j][0];
  sink = s;
  return rounds;
}

static void *worker(void *p) {
  pthread_barrier_wait(&barrier);
  *(long *)p = run();
  return NULL;
}

int main(int argc, char **argv) {
  int threads = argc > 1 ? atoi(argv[1]) : 1;
  seconds = argc > 2 ? atof(argv[2]) : 0.5;
  pthread_t t[256];
  long rounds[256];
  if (threads < 1 || threads > 256) return 2;
  pthread_barrier_init(&barrier, NULL, threads + 1);
  for (int i = 0; i < threads; i++) pthread_create(&t[i], NULL, worker, &rounds[i]);
  double t0 = now();
  pthread_barrier_wait(&barrier);
  long total = 0;
  for (int i = 0; i < threads; i++) {
    pthread_join(t[i], NULL);
    total += rounds[i];
  }
  double el = now() - t0;
  printf("%.1f GFLOP/s (%d threads, %d lanes, %d chains)\n", total * (double)NACC * LANES * 2 / el / 1e9, threads, LANES, NACC);
  return 0;
}
