package io.forgeflow.domain.job;

import org.junit.jupiter.api.Test;

import java.util.HashSet;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

class JobRuleCasesTest {
    @Test
    void theTableReadsAndItsCasesAreNamedOnce() {
        Set<String> names = new HashSet<>();
        assertThat(JobRuleCases.all()).hasSizeGreaterThan(25)
                .allSatisfy(c -> assertThat(names.add(c.name())).as("case %s named once", c.name()).isTrue())
                .allSatisfy(c -> assertThat(c.json()).startsWith("{").endsWith("}"));
        assertThat(JobRuleCases.forSql()).isNotEmpty();
    }
}
