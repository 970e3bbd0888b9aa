/* The saiblo SDK's interface, as dojo's test strategies declare it: a Point is two ints,
 * the row from the top (x) and the column (y). Written in C: a C struct of two ints and a
 * C++ class of two public ints have the same layout, and the functions are extern "C". */
#ifndef DOJO_TEST_STRATEGY_H
#define DOJO_TEST_STRATEGY_H
typedef struct Point { int x, y; } Point;
Point *getPoint(const int M, const int N, const int *top, const int *board, const int lastX,
                const int lastY, const int noX, const int noY);
void clearPoint(Point *p);
#endif
