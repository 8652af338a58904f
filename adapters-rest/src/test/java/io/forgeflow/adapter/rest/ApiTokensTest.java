package io.forgeflow.adapter.rest;

import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Set;
import java.util.function.BiPredicate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class ApiTokensTest {
    static final String SECRET = "s3cret-0123456789abcdef";

    static String sha256Hex(String token) {
        return HexFormat.of().formatHex(ApiTokens.sha256(token));
    }

    @Nested
    class Parsing {
        @Test
        void scopesJoinedWithPlusAndTokensSeparatedByCommasAsInTheVariable() {
            ApiTokens tokens = ApiTokens.parse(List.of("admin:" + SECRET + ", read+operate:0pst0ken-0123456789,"
                    + " submit : sub-0123456789abcdef "));

            assertThat(tokens.size()).isEqualTo(3);
            assertThat(tokens.authenticate(SECRET)).hasValueSatisfying(p -> {
                assertThat(p.name()).isEqualTo("token 1");
                assertThat(p.scopes()).containsExactly(Scope.ADMIN);
            });
            assertThat(tokens.authenticate("0pst0ken-0123456789")).hasValueSatisfying(p ->
                    assertThat(p.scopes()).containsExactlyInAnyOrder(Scope.READ, Scope.OPERATE));
            assertThat(tokens.authenticate("sub-0123456789abcdef")).hasValueSatisfying(p ->
                    assertThat(p.scopes()).containsExactly(Scope.SUBMIT));
        }

        @Test
        void aTenantBeforeTheScopesBindsTheTokenToIt() {
            ApiTokens tokens = ApiTokens.parse(List.of("acme/submit+read:" + SECRET + ",admin:all-0123456789abcdef,"
                    + "beta.eu-1/read:sha256:" + sha256Hex("hashed-0123456789abcdef") + ",read:with/slash-0123456789"));

            assertThat(tokens.authenticate(SECRET)).hasValueSatisfying(p -> {
                assertThat(p.tenant()).isEqualTo("acme");
                assertThat(p.scopes()).containsExactlyInAnyOrder(Scope.SUBMIT, Scope.READ);
                assertThat(p.toString()).isEqualTo("token 1 of tenant acme (read+submit)");
            });
            assertThat(tokens.authenticate("all-0123456789abcdef")).hasValueSatisfying(p ->
                    assertThat(p.tenant()).isNull());
            assertThat(tokens.authenticate("hashed-0123456789abcdef")).hasValueSatisfying(p ->
                    assertThat(p.tenant()).isEqualTo("beta.eu-1"));
            assertThat(tokens.authenticate("with/slash-0123456789")).as("a '/' in the token is the token's")
                    .hasValueSatisfying(p -> assertThat(p.tenant()).isNull());
        }

        @Test
        void aBadTenantNameIsRefusedNamingTheEntryNotTheToken() {
            assertThatThrownBy(() -> ApiTokens.parse(List.of("read:ok-0123456789abcdef", "Acme Corp/read:" + SECRET)))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("FORGEFLOW_API_TOKENS entry 2")
                    .hasMessageContaining("acme/submit+read:<secret>")
                    .hasMessageNotContaining(SECRET);
        }

        @Test
        void entriesMayComeOnePerListItemAsInYaml() {
            ApiTokens tokens = ApiTokens.parse(List.of("read:" + SECRET, "operate:other-0123456789abcdef"));

            assertThat(tokens.size()).isEqualTo(2);
            assertThat(tokens.authenticate("other-0123456789abcdef")).hasValueSatisfying(p ->
                    assertThat(p.name()).isEqualTo("token 2"));
        }

        @Test
        void aTokenMayBeGivenAsTheSha256OfItselfInAnyCase() {
            ApiTokens tokens = ApiTokens.parse(List.of("read+operate:sha256:" + sha256Hex(SECRET),
                    "admin:SHA256:" + sha256Hex("admin-0123456789abcdef").toUpperCase()));

            assertThat(tokens.authenticate(SECRET)).hasValueSatisfying(p ->
                    assertThat(p.scopes()).containsExactlyInAnyOrder(Scope.READ, Scope.OPERATE));
            assertThat(tokens.authenticate("admin-0123456789abcdef")).isPresent();
            assertThat(tokens.authenticate(sha256Hex(SECRET))).as("the digest is not the token").isEmpty();
            assertThat(tokens.authenticate("sha256:" + sha256Hex(SECRET))).isEmpty();
        }

        @Test
        void aTokenMayContainColonsAfterTheFirst() {
            assertThat(ApiTokens.parse(List.of("read:a:b:c-0123456789abcdef")).authenticate("a:b:c-0123456789abcdef"))
                    .isPresent();
        }

        @Test
        void nothingConfiguredIsAnOpenApi() {
            assertThat(ApiTokens.parse(List.of()).isEmpty()).isTrue();
            assertThat(ApiTokens.parse(List.of("", " , ,")).isEmpty()).isTrue();
            assertThat(ApiTokens.parse(null).isEmpty()).isTrue();
            assertThat(ApiTokens.none().authenticate(SECRET)).isEmpty();
        }

        @Test
        void shortPlainTokensAreAcceptedWithAWarningNamingTheEntry() {
            ApiTokens tokens = ApiTokens.parse(List.of("admin:s3cret,read:" + SECRET + ",read+operate:0pst0ken"));

            assertThat(tokens.authenticate("s3cret")).isPresent();
            assertThat(tokens.warnings()).hasSize(2);
            assertThat(tokens.warnings().get(0)).contains("FORGEFLOW_API_TOKENS entry 1").contains("shorter than 16")
                    .doesNotContain("s3cret");
            assertThat(tokens.warnings().get(1)).contains("entry 3");
        }

        @ParameterizedTest(name = "{0}")
        @CsvSource(delimiter = '|', value = {
                "justatoken-0123456789                 | entry 1 is not scope:token",
                "read:" + SECRET + ",tokenwithoutscope  | entry 2 is not scope:token",
                ":" + SECRET + "                         | entry 1 names no scope",
                "wirte:" + SECRET + "                    | entry 1 names an unknown scope 'wirte'",
                "read+:" + SECRET + "                    | entry 1 names an unknown scope",
                "read+root:" + SECRET + "                | entry 1 names an unknown scope 'root'",
                "READ!:" + SECRET + "                    | entry 1 names an unknown scope:",
                "read:                                   | entry 1 has an empty token",
                "read:sha256:abc                         | entry 1 has a sha256: digest that is not 64 hexadecimal",
                "read:sha256:zz" + "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcd | not 64 hexadecimal",
                "read:" + SECRET + ",admin:" + SECRET + " | entries 1 and 2 are the same token"})
        void aMalformedEntryStopsTheNodeWithAMessageNamingTheVariableButNeverTheToken(String configured, String message) {
            assertThatThrownBy(() -> ApiTokens.parse(List.of(configured)))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("FORGEFLOW_API_TOKENS")
                    .hasMessageContaining(message.strip())
                    .satisfies(e -> assertThat(e.getMessage()).doesNotContain(SECRET, "justatoken", "tokenwithoutscope"));
        }

        @Test
        void aTokenGivenOnceInPlainAndOnceAsItsDigestIsAlsoTheSameToken() {
            assertThatThrownBy(() -> ApiTokens.parse(List.of("read:" + SECRET, "admin:sha256:" + sha256Hex(SECRET))))
                    .hasMessageContaining("entries 1 and 2 are the same token");
        }
    }

    @Nested
    class ConstantTimeComparison {
        final List<String> configured = List.of("admin:first-0123456789abcdef", "read:second-0123456789abcdef",
                "operate:third-0123456789abcdef");

        /** Records every comparison and delegates to MessageDigest.isEqual. */
        final List<byte[][]> compared = new ArrayList<>();
        final BiPredicate<byte[], byte[]> watching = (a, b) -> {
            compared.add(new byte[][]{a, b});
            return MessageDigest.isEqual(a, b);
        };

        @ParameterizedTest(name = "presented: \"{0}\"")
        @ValueSource(strings = {"first-0123456789abcdef", "second-0123456789abcdef", "third-0123456789abcdef",
                "third-0123456789abcdeX", "f", "", "a much longer token than any configured one, 0123456789"})
        void everyConfiguredDigestIsComparedOnceWhereverTheMatchIsAndWhateverWasPresented(String presented) {
            ApiTokens tokens = ApiTokens.parse(configured, watching);

            tokens.authenticate(presented);

            assertThat(compared).as("one comparison per configured token, no early exit").hasSize(3);
            assertThat(compared).as("SHA-256 digests of equal length, never the raw token")
                    .allSatisfy(pair -> {
                        assertThat(pair[0]).hasSize(32);
                        assertThat(pair[1]).hasSize(32).isEqualTo(ApiTokens.sha256(presented));
                    });
            assertThat(Set.copyOf(compared.stream().map(p -> HexFormat.of().formatHex(p[0])).toList()))
                    .as("each configured digest once").hasSize(3);
        }

        @Test
        void theMatchIsDecidedByMessageDigestIsEqual() {
            ApiTokens tokens = ApiTokens.parse(configured, (a, b) -> false);

            assertThat(tokens.authenticate("first-0123456789abcdef")).as("a comparison that says no").isEmpty();
            assertThat(ApiTokens.parse(configured).authenticate("first-0123456789abcdef")).isPresent();
        }

        @Test
        void nearMissesAreRefused() {
            ApiTokens tokens = ApiTokens.parse(configured);

            assertThat(tokens.authenticate("first-0123456789abcde")).isEmpty();
            assertThat(tokens.authenticate("first-0123456789abcdef ")).isEmpty();
            assertThat(tokens.authenticate("FIRST-0123456789ABCDEF")).isEmpty();
            assertThat(tokens.authenticate(null)).isEmpty();
        }
    }

    @Nested
    class Principals {
        @Test
        void adminHasEveryScopeAndOthersOnlyTheirOwn() {
            ApiPrincipal admin = new ApiPrincipal("token 1", Set.of(Scope.ADMIN));
            ApiPrincipal readOperate = new ApiPrincipal("token 2", Set.of(Scope.READ, Scope.OPERATE));

            assertThat(Scope.values()).allSatisfy(s -> assertThat(admin.has(s)).isTrue());
            assertThat(readOperate.has(Scope.READ)).isTrue();
            assertThat(readOperate.has(Scope.OPERATE)).isTrue();
            assertThat(readOperate.has(Scope.SUBMIT)).isFalse();
            assertThat(readOperate.has(Scope.ADMIN)).isFalse();
            assertThat(readOperate.toString()).isEqualTo("token 2 (read+operate)");
        }
    }
}
