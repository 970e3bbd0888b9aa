/* A strategy that keeps the game itself and aborts (a crash the host reports, with these
 * words on stderr) on any difference from the saiblo SDK's conventions: board[x*N + y] with
 * x the row from the top, 0 empty (the forbidden cell too), 1 the opponent, 2 itself; top[y]
 * one more than the landing row, skipping the forbidden cell, 0 when full; lastX, lastY the
 * opponent's last move, -1, -1 on the first move of the game; a fresh process each game.
 * It plays a column that depends on its move number, so games wander over the board. */
#include "strategy.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int moves = 0;          /* its moves this game (this process) */
static int seen[12][12];       /* the board as it knows it */
static int known_m, known_n, known_no_x, known_no_y;
static int second;              /* whether it moves second this game */

#define FAIL(...) do { fprintf(stderr, "checker: "); fprintf(stderr, __VA_ARGS__); \
                       fprintf(stderr, "\n"); abort(); } while (0)

/* One more than the landing row of column y on its own board. */
static int top_of(int y) {
    int x = known_m - 1;
    while (x >= 0 && (seen[x][y] != 0 || (x == known_no_x && y == known_no_y))) x--;
    return x + 1;
}

Point *getPoint(const int M, const int N, const int *top, const int *board, const int lastX,
                const int lastY, const int noX, const int noY) {
    if (M < 9 || M > 12 || N < 9 || N > 12) FAIL("a %dx%d board: saiblo's are 9..12 each way", M, N);
    if (noX < 0 || noX >= M || noY < 0 || noY >= N) FAIL("forbidden cell %d,%d off the board", noX, noY);
    if (moves == 0) {
        memset(seen, 0, sizeof seen);
        known_m = M; known_n = N; known_no_x = noX; known_no_y = noY;
        second = lastX != -1;
    } else if (M != known_m || N != known_n || noX != known_no_x || noY != known_no_y) {
        FAIL("the board changed within a game (or the process was reused)");
    }
    int count = 0;
    for (int i = 0; i < M * N; i++) count += board[i] != 0;
    if (lastX == -1 && lastY == -1) {
        if (moves != 0 || count != 0) FAIL("no last move, but move %d with %d discs", moves, count);
    } else {
        if (lastX < 0 || lastX >= M || lastY < 0 || lastY >= N) FAIL("last move %d,%d off the board", lastX, lastY);
        if (lastX != top_of(lastY) - 1) FAIL("last move %d,%d is not where column %d's disc lands", lastX, lastY, lastY);
        seen[lastX][lastY] = 1;
        if (count != 2 * moves + second) FAIL("%d discs after %d moves of mine and the opponent's", count, moves);
    }
    for (int x = 0; x < M; x++)
        for (int y = 0; y < N; y++)
            if (board[x * N + y] != seen[x][y])
                FAIL("cell %d,%d is %d, expected %d (move %d)", x, y, board[x * N + y], seen[x][y], moves);
    for (int y = 0; y < N; y++)
        if (top[y] != top_of(y)) FAIL("top[%d] is %d, expected %d", y, top[y], top_of(y));
    for (int i = 0; i < N; i++) {
        int y = (moves * 5 + 3 + i) % N;
        if (top[y] > 0) {
            Point *p = malloc(sizeof *p);
            p->x = top[y] - 1;
            p->y = y;
            seen[p->x][p->y] = 2;
            moves++;
            return p;
        }
    }
    FAIL("asked to move on a full board");
}

void clearPoint(Point *p) { free(p); }
