package io.forgeflow.domain.tenant;

import io.forgeflow.domain.error.ValidationException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class TenantsTest {
    @ParameterizedTest
    @ValueSource(strings = {"default", "acme", "a", "team_7.eu-west", "0"})
    void wellFormedNames(String name) {
        assertThat(Tenants.isValid(name)).isTrue();
        assertThat(Tenants.require("tenant", name)).isEqualTo(name);
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "Acme", "acme corp", "acme/x", "acme:x", "\u001f", "é"})
    void otherNamesAreRefusedOnTheFieldSaidHowToWriteOne(String name) {
        assertThat(Tenants.isValid(name)).isFalse();
        assertThatThrownBy(() -> Tenants.require("tenant", name))
                .isInstanceOfSatisfying(ValidationException.class, e -> assertThat(e.field()).isEqualTo("tenant"))
                .hasMessageContaining("1 to 63 lower-case letters")
                .hasMessageContaining("e.g. \"acme\"");
    }

    @Test
    void sixtyThreeCharactersAtMost() {
        assertThat(Tenants.isValid("a".repeat(63))).isTrue();
        assertThat(Tenants.isValid("a".repeat(64))).isFalse();
        assertThat(Tenants.isValid(null)).isFalse();
    }

    @Test
    void aRefusedNameIsShownPrintableAndShort() {
        assertThatThrownBy(() -> Tenants.require("tenant", "bad\nname"))
                .hasMessageStartingWith("tenant 'bad?name' is not a tenant name");
        assertThatThrownBy(() -> Tenants.require("tenant", "x".repeat(80)))
                .hasMessageContaining("'" + "x".repeat(70) + "…'");
        assertThatThrownBy(() -> Tenants.require("tenant", "y".repeat(70) + "Z"))
                .hasMessageContaining("'" + "y".repeat(70) + "…'");
        assertThatThrownBy(() -> Tenants.require("tenant", "Z".repeat(70)))
                .hasMessageContaining("'" + "Z".repeat(70) + "'");
        assertThatThrownBy(() -> Tenants.require("tenant", null)).hasMessageStartingWith("tenant 'null'");
    }

    @Test
    void theDefaultTenantStandsInForNone() {
        assertThat(Tenants.orDefault(null)).isEqualTo("default");
        assertThat(Tenants.orDefault("acme")).isEqualTo("acme");
    }

    @Test
    void keysOfTheDefaultTenantAreStoredAsGivenOthersBehindTheName() {
        assertThat(Tenants.scopedKey("default", "order-42")).isEqualTo("order-42");
        assertThat(Tenants.scopedKey(null, "order-42")).isEqualTo("order-42");
        assertThat(Tenants.scopedKey("acme", "order-42")).isEqualTo("acme\u001forder-42");
        assertThat(Tenants.scopedKey("acme", null)).isNull();
    }

    @Test
    void aStoredKeyReadsBackAsGiven() {
        assertThat(Tenants.unscopedKey("acme\u001forder-42")).isEqualTo("order-42");
        assertThat(Tenants.unscopedKey("order-42")).isEqualTo("order-42");
        assertThat(Tenants.unscopedKey("\u001fk")).isEqualTo("k");
        assertThat(Tenants.unscopedKey(null)).isNull();
        // a key may hold the separator's neighbours, and the name's characters
        assertThat(Tenants.unscopedKey(Tenants.scopedKey("a.b", "a.b/c:d"))).isEqualTo("a.b/c:d");
    }
}
