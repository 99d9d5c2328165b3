/*
 * assert_near.h -- assert_near(a, b, eps): the current cmocka test fails
 * unless |a - b| <= eps, naming the expression and both values (cmocka 1.1.5
 * has no double assert). Include after <cmocka.h> and <math.h>.
 */
#ifndef PGCB_TESTS_ASSERT_NEAR_H
#define PGCB_TESTS_ASSERT_NEAR_H

#define assert_near(a, b, eps)                                              \
    do {                                                                    \
        double a_ = (a), b_ = (b);                                          \
        if (!(fabs(a_ - b_) <= (eps)))                                      \
            fail_msg("%s = %.17g, expected %.17g +- %g", #a, a_, b_,        \
                     (double)(eps));                                        \
    } while (0)

#endif
