// Progress without a terminal (a log file, CI, a sweep's train.log): one line per logged step with the
// ETA, a speed that reads right for slow steps too, and the last evaluation once there is one.
#include "train/progress_reporter.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <string>

namespace sinklab {
namespace {

// What the reporter prints for these snapshots into a temporary file (never a terminal).
std::string printed(std::initializer_list<ProgressSnapshot> snapshots) {
  std::FILE* file = std::tmpfile();
  {
    ProgressReporter reporter(file, false);
    for (const ProgressSnapshot& s : snapshots) reporter.update(s);
  }
  std::rewind(file);
  std::string text;
  for (int c; (c = std::fgetc(file)) != EOF;) text += static_cast<char>(c);
  std::fclose(file);
  return text;
}

ProgressSnapshot at_step(int64_t step, double steps_per_second) {
  ProgressSnapshot s;
  s.step = step;
  s.max_steps = 50000;
  s.loss = 0.25;
  s.max_abs_error = 0.5;
  s.steps_per_second = steps_per_second;
  return s;
}

TEST(ProgressReporter, PlainLinesCarryTheTimeLeftAsHoursMinutesSeconds) {
  // 49900 steps left after step 99 at 10 steps/s: 4990 s.
  EXPECT_EQ(printed({at_step(99, 10)}), "step 99/50000 loss 2.500e-01 max_err 5.000e-01 10 steps/s ETA 1:23:10\n");
}

TEST(ProgressReporter, SlowStepsAreShownAsSecondsPerStepNeverAsZeroStepsPerSecond) {
  const std::string line = printed({at_step(49, 0.1)});
  EXPECT_NE(line.find(" 10.0 s/step "), std::string::npos) << line;
  EXPECT_EQ(line.find("0 steps/s"), std::string::npos) << line;
  EXPECT_NE(line.find("ETA 138:45:00"), std::string::npos) << line;  // 49950 steps at 10 s each
}

TEST(ProgressReporter, BeforeTheSpeedIsMeasuredItSaysSoRatherThanZero) {
  const std::string line = printed({at_step(0, 0)});
  EXPECT_NE(line.find("-- steps/s ETA --:--:--"), std::string::npos) << line;
  EXPECT_EQ(line.find("0 steps/s"), std::string::npos) << line;
}

TEST(ProgressReporter, TheLastEvaluationIsShownOnEveryLineAfterIt) {
  ProgressSnapshot before = at_step(0, 0), after = at_step(300, 100);
  after.evaluation = {.step = 250, .loss = 1.5e-3, .error = 4.0e-2};
  const std::string text = printed({before, after});
  const std::string first = text.substr(0, text.find('\n')), second = text.substr(text.find('\n') + 1);
  EXPECT_EQ(first.find("eval"), std::string::npos) << first;
  EXPECT_NE(second.find("| eval@250 loss 1.500e-03 max_err 4.000e-02\n"), std::string::npos) << second;
}

TEST(ProgressReporter, ATokenTaskShowsTheShareOfWrongTokens) {
  ProgressSnapshot s = at_step(300, 100);
  s.token_error = true;
  s.evaluation = {.step = 250, .loss = 2.0, .error = 0.25};
  const std::string line = printed({s});
  EXPECT_NE(line.find("loss 2.500e-01 token_err 5.000e-01"), std::string::npos) << line;
  EXPECT_NE(line.find("eval@250 loss 2.000e+00 token_err 2.500e-01"), std::string::npos) << line;
}

// On a terminal the bar is redrawn with "\r": a line wider than the terminal would wrap and leave a
// trail of half-lines, so it is clipped to the width.
TEST(ProgressReporter, TheTerminalBarFitsTheTerminalWidth) {
  ProgressSnapshot s = at_step(99, 10);
  s.evaluation.step = 50;
  const std::string wide = progress_bar_line(s, 0);
  ASSERT_GT(wide.size(), 80u) << "the test needs a line longer than an 80-column terminal";
  EXPECT_EQ(wide.rfind("[", 0), 0u);
  EXPECT_EQ(progress_bar_line(s, 80).size(), 79u);
  EXPECT_EQ(progress_bar_line(s, 80), wide.substr(0, 79));
}

TEST(ProgressReporter, QuietPrintsNothing) {
  std::FILE* file = std::tmpfile();
  ProgressReporter reporter(file, true);
  reporter.update(at_step(10, 10));
  reporter.finish("done");
  EXPECT_EQ(std::ftell(file), 0);
  std::fclose(file);
}

}  // namespace
}  // namespace sinklab
