package io.forgeflow.application.worker;

import io.forgeflow.domain.queue.QueueSelection;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.NullSource;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.List;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** FORGEFLOW_QUEUES: which queues a worker takes, and into which of its slots. Default slots here: 16. */
class QueueLaneTest {
    static final int DEFAULT_SLOTS = 16;

    static QueueLane only(int slots, String... queues) {
        return new QueueLane(QueueSelection.only(Set.of(queues)), slots);
    }

    static QueueLane allBut(int slots, String... queues) {
        return new QueueLane(QueueSelection.allBut(Set.of(queues)), slots);
    }

    @Nested
    class Parse {
        @ParameterizedTest
        @NullSource
        @ValueSource(strings = {"", "   ", "*", " * ", "\t*\n"})
        void blankOrAStarIsEveryQueueInTheDefaultSlots(String spec) {
            assertThat(QueueLane.parse(spec, DEFAULT_SLOTS)).containsExactly(new QueueLane(QueueSelection.ALL, 16));
        }

        @Test
        void queuesWithCountsGetSlotsOfTheirOwnAndNothingElseIsTaken() {
            assertThat(QueueLane.parse("reports=2,webhooks=16", DEFAULT_SLOTS))
                    .containsExactly(only(2, "reports"), only(16, "webhooks"));
        }

        @Test
        void aStarWithoutACountTakesEveryOtherQueueInTheDefaultSlots() {
            List<QueueLane> lanes = QueueLane.parse("reports=2,*", DEFAULT_SLOTS);

            assertThat(lanes).containsExactly(only(2, "reports"), allBut(16, "reports"));
            assertThat(lanes.get(1).queues().takes("default")).isTrue();
            assertThat(lanes.get(1).queues().takes("reports")).isFalse();
        }

        @Test
        void queuesWithoutCountsShareTheDefaultSlots() {
            assertThat(QueueLane.parse("a,b", DEFAULT_SLOTS)).containsExactly(only(16, "a", "b"));
        }

        @Test
        void aStarWithACountGetsItsOwnSlotsAndNamedQueuesWithoutCountsShareTheDefault() {
            assertThat(QueueLane.parse("a=2,b,*=3", DEFAULT_SLOTS))
                    .containsExactly(only(2, "a"), allBut(3, "a", "b"), only(16, "b"));
        }

        @Test
        void namedQueuesWithoutCountsAndAStarWithoutOneShareTheDefaultSlots() {
            assertThat(QueueLane.parse("a=2,b,*", DEFAULT_SLOTS)).containsExactly(only(2, "a"), allBut(16, "a"));
        }

        @Test
        void aStarWithACountAloneIsEveryQueueInThatManySlots() {
            assertThat(QueueLane.parse("*=3", DEFAULT_SLOTS)).containsExactly(new QueueLane(QueueSelection.ALL, 3));
        }

        @Test
        void spacesAroundNamesCountsAndCommasAreIgnored() {
            assertThat(QueueLane.parse("  reports = 2 ,  webhooks ", DEFAULT_SLOTS))
                    .containsExactly(only(2, "reports"), only(16, "webhooks"));
        }

        @Test
        void theOrderOfTheEntriesDoesNotChangeWhatIsTaken() {
            assertThat(QueueLane.parse("*=3,b,a=2", DEFAULT_SLOTS))
                    .containsExactly(only(2, "a"), allBut(3, "a", "b"), only(16, "b"));
        }

        @Test
        void oneAndAThousandSlotsAreTheBounds() {
            assertThat(QueueLane.parse("a=1,b=1000", DEFAULT_SLOTS)).containsExactly(only(1, "a"), only(1000, "b"));
        }

        @Test
        void queueNamesAreCaseSensitive() {
            assertThat(QueueLane.parse("Reports=1,reports=2", DEFAULT_SLOTS))
                    .containsExactly(only(1, "Reports"), only(2, "reports"));
        }
    }

    @Nested
    class Errors {
        @ParameterizedTest(name = "''{0}'': {1}")
        @CsvSource(delimiter = '|', quoteCharacter = '"', value = {
                "a,,b         | an empty entry",
                "a,           | an empty entry",
                ",a           | an empty entry",
                "a, ,b        | an empty entry",
                "a,a          | queue 'a' is listed twice",
                "a=2,a=3      | queue 'a' is listed twice",
                "a,b=2,a      | queue 'a' is listed twice",
                "*,*          | queue '*' is listed twice",
                "*=2,*        | queue '*' is listed twice",
                "a=x          | 'a=x': the slots after '=' must be a whole number, e.g. reports=2",
                "a=           | 'a=': the slots after '=' must be a whole number",
                "a=2.5        | 'a=2.5': the slots after '=' must be a whole number",
                "a=2=3        | 'a=2=3': the slots after '=' must be a whole number",
                "a=99999999999 | 'a=99999999999': the slots after '=' must be a whole number",
                "a=0          | 'a=0': slots must be between 1 and 1000",
                "a=-1         | 'a=-1': slots must be between 1 and 1000",
                "a=1001       | 'a=1001': slots must be between 1 and 1000",
                "*=0          | '*=0': slots must be between 1 and 1000",
                "a b          | 'a b' is not a queue name (letters, digits, '.', '_', '-')",
                "-a           | '-a' is not a queue name",
                "=2           | '' is not a queue name",
                "ümlaut=2     | 'ümlaut' is not a queue name",
                "a;b          | 'a;b' is not a queue name",
                "a*           | 'a*' is not a queue name"})
        void aMalformedListIsRefusedNamingFORGEFLOW_QUEUESTheEntryAndHowToWriteIt(String spec, String why) {
            assertThatThrownBy(() -> QueueLane.parse(spec, DEFAULT_SLOTS))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageStartingWith("FORGEFLOW_QUEUES '" + spec + "' is not valid: ")
                    .hasMessageContaining(why)
                    .hasMessageContaining("\"reports=2,webhooks=16\"")
                    .hasMessageContaining("\"reports=2,*\"");
        }

        @Test
        void aNameLongerThanAHundredCharactersIsRefused() {
            String spec = "q".repeat(101) + "=2";
            assertThatThrownBy(() -> QueueLane.parse(spec, DEFAULT_SLOTS))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("FORGEFLOW_QUEUES").hasMessageContaining("is not a queue name");
        }
    }

    @Nested
    class Lanes {
        @Test
        void aLaneHasOneToAThousandSlots() {
            assertThatThrownBy(() -> new QueueLane(QueueSelection.ALL, 0))
                    .isInstanceOf(IllegalArgumentException.class).hasMessage("a queue lane needs 1 to 1000 slots, was 0");
            assertThatThrownBy(() -> new QueueLane(QueueSelection.ALL, 1001))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("was 1001");
            assertThat(new QueueLane(QueueSelection.ALL, 1000).slots()).isEqualTo(1000);
        }

        @Test
        void aLaneNeedsASelection() {
            assertThatThrownBy(() -> new QueueLane(null, 1)).isInstanceOf(NullPointerException.class)
                    .hasMessage("queues");
        }

        @Test
        void allIsOneLaneOfEveryQueue() {
            assertThat(QueueLane.all(4)).containsExactly(new QueueLane(QueueSelection.ALL, 4));
        }

        @Test
        void aLaneDescribesItselfForTheStartupLog() {
            assertThat(only(2, "reports")).hasToString("queues [reports] in 2 slot(s)");
            assertThat(QueueLane.all(16).get(0)).hasToString("all queues in 16 slot(s)");
            assertThat(allBut(3, "reports")).hasToString("all queues but [reports] in 3 slot(s)");
        }
    }
}
