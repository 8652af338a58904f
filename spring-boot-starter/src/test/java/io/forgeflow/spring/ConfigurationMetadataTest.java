package io.forgeflow.spring;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;
import org.springframework.beans.BeanWrapperImpl;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.context.annotation.ImportCandidates;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.context.properties.source.ConfigurationProperty;
import org.springframework.boot.context.properties.source.ConfigurationPropertyName;
import org.springframework.boot.context.properties.source.ConfigurationPropertySource;
import org.springframework.boot.convert.ApplicationConversionService;
import org.springframework.core.annotation.MergedAnnotation;
import org.springframework.core.annotation.MergedAnnotations;
import org.springframework.core.type.AnnotationMetadata;
import org.springframework.core.type.MethodMetadata;
import org.springframework.core.type.classreading.MetadataReaderFactory;
import org.springframework.core.type.classreading.SimpleMetadataReaderFactory;

import java.io.IOException;
import java.io.InputStream;
import java.net.URL;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The configuration metadata that IDEs complete {@code forgeflow.*} from ({@code META-INF/spring-configuration-metadata.json},
 * written by spring-boot-configuration-processor at compile time) lists every {@code forgeflow.*} property the starter
 * reads, with its description and default. The properties are found in the code, as Spring finds them: the names
 * Spring's {@link Binder} asks for when it binds {@link ForgeFlowProperties}, and the {@link ConditionalOnProperty}
 * names of the starter's auto-configurations.
 */
class ConfigurationMetadataTest {
    static final String METADATA = "META-INF/spring-configuration-metadata.json";

    @Test
    void theMetadataListsEveryPropertyTheStarterReadsWithItsDescriptionAndDefault() throws Exception {
        Map<String, JsonNode> listed = listedProperties();
        Set<String> read = new TreeSet<>(boundByForgeFlowProperties());
        read.addAll(conditionProperties());
        assertThat(read).as("found in the code").contains("forgeflow.enabled", "forgeflow.poll-interval",
                "forgeflow.recurring-owner");

        assertThat(listed.keySet()).containsExactlyInAnyOrderElementsOf(read);
        BeanWrapperImpl defaults = new BeanWrapperImpl(new ForgeFlowProperties());
        for (String name : read) {
            JsonNode property = listed.get(name);
            assertThat(property.path("description").asText()).as(name + "'s description").isNotBlank();
            Object initial = defaults.getPropertyValue(camelCase(name.substring(prefix().length() + 1)));
            if (initial == null) {
                assertThat(property.has("defaultValue")).as(name + " has no default").isFalse();
            } else {
                assertThat(property.has("defaultValue")).as(name + " documents its default " + initial).isTrue();
                Object documented = ApplicationConversionService.getSharedInstance()
                        .convert(property.get("defaultValue").asText(), initial.getClass());
                assertThat(documented).as(name + "'s default").isEqualTo(initial);
            }
        }
    }

    /** The properties of the starter's metadata (other jars on the classpath have theirs), by name. */
    static Map<String, JsonNode> listedProperties() throws Exception {
        String starter = ForgeFlowProperties.class.getProtectionDomain().getCodeSource().getLocation().toString();
        URL found = null;
        for (URL url : Collections.list(getClassLoader().getResources(METADATA))) {
            if (url.toString().replaceFirst("^jar:", "").startsWith(starter)) {
                found = url;
            }
        }
        assertThat(found).as(METADATA + " beside ForgeFlowProperties, in " + starter).isNotNull();
        Map<String, JsonNode> byName = new LinkedHashMap<>();
        try (InputStream in = found.openStream()) {
            for (JsonNode property : new ObjectMapper().readTree(in).path("properties")) {
                byName.put(property.path("name").asText(), property);
            }
        }
        return byName;
    }

    static String prefix() {
        return ForgeFlowProperties.class.getAnnotation(ConfigurationProperties.class).prefix();
    }

    /** The leaf names the Binder looks up while binding {@link ForgeFlowProperties} from a source that has none. */
    static Set<String> boundByForgeFlowProperties() {
        List<ConfigurationPropertyName> asked = new ArrayList<>();
        ConfigurationPropertySource recording = name -> {
            asked.add(name);
            return (ConfigurationProperty) null;
        };
        new Binder(recording).bind(prefix(), Bindable.ofInstance(new ForgeFlowProperties()));
        Set<String> leaves = new TreeSet<>();
        for (ConfigurationPropertyName name : asked) {
            if (asked.stream().noneMatch(name::isAncestorOf)) {
                leaves.add(name.toString());
            }
        }
        return leaves;
    }

    /**
     * The {@code forgeflow.*} names of the {@link ConditionalOnProperty} on the starter's auto-configurations, their
     * nested configurations and their {@code @Bean} methods, read from the class files as Spring reads conditions
     * (without loading the classes: some name types of only one Boot version).
     */
    static Set<String> conditionProperties() throws IOException {
        Set<String> names = new TreeSet<>();
        MetadataReaderFactory reader = new SimpleMetadataReaderFactory(getClassLoader());
        for (String candidate : ImportCandidates.load(AutoConfiguration.class, getClassLoader())) {
            if (candidate.startsWith(ForgeFlowProperties.class.getPackageName() + ".")) {
                collectConditions(reader, candidate, names);
            }
        }
        assertThat(names).as("the starter's auto-configurations have property conditions").isNotEmpty();
        return names;
    }

    private static void collectConditions(MetadataReaderFactory reader, String type, Set<String> names)
            throws IOException {
        AnnotationMetadata metadata = reader.getMetadataReader(type).getAnnotationMetadata();
        addConditions(metadata.getAnnotations(), names);
        for (MethodMetadata method : metadata.getDeclaredMethods()) {
            addConditions(method.getAnnotations(), names);
        }
        for (String nested : metadata.getMemberClassNames()) {
            collectConditions(reader, nested, names);
        }
    }

    private static void addConditions(MergedAnnotations annotations, Set<String> names) {
        annotations.stream(ConditionalOnProperty.class).forEach(condition -> {
            String prefix = condition.getString("prefix");
            for (String name : condition.getStringArray(MergedAnnotation.VALUE).length > 0
                    ? condition.getStringArray(MergedAnnotation.VALUE) : condition.getStringArray("name")) {
                String full = prefix.isEmpty() ? name : prefix.replaceAll("\\.$", "") + "." + name;
                if (full.startsWith(prefix() + ".")) {
                    names.add(full);
                }
            }
        });
    }

    private static ClassLoader getClassLoader() {
        return ConfigurationMetadataTest.class.getClassLoader();
    }

    /** {@code poll-interval}: {@code pollInterval}. */
    static String camelCase(String kebab) {
        StringBuilder out = new StringBuilder();
        boolean upper = false;
        for (char c : kebab.toCharArray()) {
            if (c == '-') {
                upper = true;
            } else {
                out.append(upper ? Character.toUpperCase(c) : c);
                upper = false;
            }
        }
        return out.toString();
    }
}
