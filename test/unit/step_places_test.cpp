// Where in the step a launch outside it ran (replay/step_places): the step's positions whose
// neighbouring launches match the launch's own, the longest match winning, ties all returned.
#include "replay/step_places.hpp"

#include <gtest/gtest.h>

#include <vector>

using roofline::collect::StepPlaces;

TEST(StepPlaces, TheLaunchesAroundItPickThePlace) {
    //                         0  1  2  3  4  5  6  7  8  9 10 11
    StepPlaces places({1, 2, 9, 3, 4, 5, 6, 7, 8, 9, 10, 11});
    // The 9 at launch 5: its 12 neighbours match those of position 9, none those of position 2.
    const std::vector<int> launches = {4, 5, 6, 7, 8, 9, 10, 11, 1, 2, 9, 3, 4};
    EXPECT_EQ(places.placesOf(launches, 5), (std::vector<std::int64_t>{9}));
    // The step repeats: the 9 at launch 10 follows 11, 1, 2 and precedes 3, 4 -- position 2.
    EXPECT_EQ(places.placesOf(launches, 10), (std::vector<std::int64_t>{2}));
}

TEST(StepPlaces, FewerThanTheLeastNeighboursMatchingPlaceNothing) {
    StepPlaces places({1, 2, 3, 4, 5, 6, 7, 8, 9, 10});
    const std::vector<int> launches = {2, 3, 4, 5, 6, 7, 8}; // 6 neighbours of 5 match
    EXPECT_TRUE(places.placesOf(launches, 3).empty());
    const std::vector<int> longer = {1, 2, 3, 4, 5, 6, 7, 8, 9};
    EXPECT_EQ(places.placesOf(longer, 4), (std::vector<std::int64_t>{4}));
}

TEST(StepPlaces, IdenticalLayersGiveEveryPlaceTheyMatch) {
    // Two identical layers 1..5 then 6: a launch in either matches both equally.
    StepPlaces places({1, 2, 3, 4, 5, 1, 2, 3, 4, 5, 6});
    const std::vector<int> launches = {1, 2, 3, 4, 5, 1, 2, 3, 4, 5, 6};
    const std::vector<std::int64_t> got = places.placesOf(launches, 2);
    EXPECT_EQ(got, (std::vector<std::int64_t>{2}));
    // Around launch 7 (3 in the second layer) the step's position 7 matches the whole sequence.
    EXPECT_EQ(places.placesOf(launches, 7), (std::vector<std::int64_t>{7}));
    // Layers longer than the launches compared: a launch deep in the second tie the second and
    // third layers.
    std::vector<int> layer, step, launches2;
    for (int v = 1; v <= 20; ++v)
        layer.push_back(v);
    for (int l = 0; l < 3; ++l)
        step.insert(step.end(), layer.begin(), layer.end());
    step.push_back(99);
    launches2 = layer;
    launches2.insert(launches2.end(), layer.begin(), layer.end());
    EXPECT_EQ(StepPlaces(step).placesOf(launches2, 25), (std::vector<std::int64_t>{25, 45}));
}

TEST(StepPlaces, UnknownLaunchesAndOutOfRangeMatchNothing) {
    StepPlaces places({1, -1, 3});
    EXPECT_TRUE(places.placesOf({1, 2, 3}, 5).empty());
    EXPECT_TRUE(places.placesOf({-1, -1, -1}, 1).empty());
    EXPECT_TRUE(places.placesOf({7}, 0).empty());
}

TEST(StepPlaces, PastItsBoundOfComparisonsNothingMoreIsPlaced) {
    std::vector<int> step;
    for (int v = 1; v <= 20; ++v)
        step.push_back(v);
    StepPlaces places(step, 40);
    EXPECT_EQ(places.placesOf(step, 10), (std::vector<std::int64_t>{10})); // 19 matched + 2
    EXPECT_FALSE(places.exhausted());
    EXPECT_EQ(places.placesOf(step, 11), (std::vector<std::int64_t>{11}));
    EXPECT_TRUE(places.exhausted());
    EXPECT_TRUE(places.placesOf(step, 12).empty());
}
