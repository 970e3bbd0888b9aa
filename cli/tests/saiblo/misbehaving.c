/* One strategy, built in several ways (-DMODE=...): plays the leftmost legal column, or
 * misbehaves on its second move as MODE says. Its move counter is static: a host that
 * reused a process across games would make it misbehave on another move. */
#include "strategy.h"
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#define LEFTMOST 0
#define CRASH 1
#define HANG 2
#define ILLEGAL 3
#define NULLPOINT 4
#define CHATTY 5
#define EXIT 6

static int moves = 0;

Point *getPoint(const int M, const int N, const int *top, const int *board, const int lastX,
                const int lastY, const int noX, const int noY) {
    (void)M; (void)board; (void)lastX; (void)lastY;
    moves++;
    if (moves == 2) {
        switch (MODE) {
        case CRASH: { volatile int *nowhere = 0; *nowhere = 1; break; }
        case HANG: for (;;) sleep(1);
        case ILLEGAL: { Point *p = malloc(sizeof *p); p->x = noX; p->y = noY; return p; }
        case NULLPOINT: return NULL;
        case EXIT: fprintf(stderr, "giving up\n"); exit(3);
        }
    }
    if (MODE == CHATTY) { printf("thinking about move %d\n", moves); fflush(stdout); }
    for (int y = 0; y < N; y++) {
        if (top[y] > 0) {
            Point *p = malloc(sizeof *p);
            p->x = top[y] - 1;
            p->y = y;
            return p;
        }
    }
    return NULL;
}

void clearPoint(Point *p) { free(p); }
