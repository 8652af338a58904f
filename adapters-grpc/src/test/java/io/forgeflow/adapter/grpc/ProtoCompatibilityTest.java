package io.forgeflow.adapter.grpc;

import com.google.protobuf.DescriptorProtos.DescriptorProto;
import com.google.protobuf.DescriptorProtos.EnumDescriptorProto;
import com.google.protobuf.DescriptorProtos.EnumValueDescriptorProto;
import com.google.protobuf.DescriptorProtos.FieldDescriptorProto;
import com.google.protobuf.DescriptorProtos.FileDescriptorProto;
import com.google.protobuf.DescriptorProtos.FileDescriptorSet;
import com.google.protobuf.DescriptorProtos.MethodDescriptorProto;
import com.google.protobuf.DescriptorProtos.ServiceDescriptorProto;
import com.google.protobuf.TextFormat;
import io.forgeflow.adapter.grpc.v1.ForgeFlowProto;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The breaking-change check of the gRPC contract: today's forgeflow.v1 descriptors against the last release's,
 * committed in src/test/resources/released/forgeflow-v1.txtpb (a FileDescriptorSet in text format). Nothing released
 * may disappear or change: messages, fields (by number: name, type, cardinality, message type), enum values,
 * services, methods (request, response, streaming). Additions pass. At a release, refresh the copy:
 * {@code mvn -pl adapters-grpc test -Dtest=ProtoCompatibilityTest -Dforgeflow.proto.release=true} (docs/grpc.md).
 */
class ProtoCompatibilityTest {
    static final Path RELEASED = Path.of("src/test/resources/released/forgeflow-v1.txtpb");

    static FileDescriptorSet current() {
        return FileDescriptorSet.newBuilder().addFile(ForgeFlowProto.getDescriptor().toProto()).build();
    }

    @Test
    void nothingReleasedIsRemovedOrChanged() throws IOException {
        if (Boolean.getBoolean("forgeflow.proto.release")) {
            Files.writeString(RELEASED, TextFormat.printer().printToString(current()), StandardCharsets.UTF_8);
        }
        FileDescriptorSet.Builder released = FileDescriptorSet.newBuilder();
        TextFormat.merge(Files.readString(RELEASED, StandardCharsets.UTF_8), released);
        List<String> breaks = breaks(released.build(), current());
        assertTrue(breaks.isEmpty(), "forgeflow.v1 breaks its last release (add fields and methods; never rename, "
                + "renumber, retype or remove them):\n  " + String.join("\n  ", breaks));
    }

    @Test
    void theCheckSeesARenamedFieldARetypedOneAndARemovedMethod() {
        FileDescriptorSet released = current();
        FileDescriptorProto file = released.getFile(0);
        FileDescriptorProto.Builder changed = file.toBuilder();
        DescriptorProto.Builder job = changed.getMessageTypeBuilderList().stream()
                .filter(m -> m.getName().equals("Job")).findFirst().orElseThrow();
        job.getFieldBuilder(0).setName("job_id");
        job.getFieldBuilder(1).setType(FieldDescriptorProto.Type.TYPE_STRING).clearTypeName();
        changed.getServiceBuilder(0).removeMethod(0);
        List<String> breaks = breaks(released, FileDescriptorSet.newBuilder().addFile(changed).build());
        assertEquals(3, breaks.size(), String.join("\n", breaks));
        assertTrue(breaks.contains("method forgeflow.v1.JobService/SubmitJob was removed"), breaks.toString());
        assertTrue(breaks.contains("forgeflow.v1.Job field 1 was named id, is job_id (JSON and text clients break)"),
                breaks.toString());
        assertTrue(breaks.contains("forgeflow.v1.Job field 2 (spec) changed its type, cardinality, presence or oneof"),
                breaks.toString());
    }

    static List<String> breaks(FileDescriptorSet released, FileDescriptorSet now) {
        Map<String, DescriptorProto> messages = new LinkedHashMap<>();
        Map<String, EnumDescriptorProto> enums = new LinkedHashMap<>();
        Map<String, ServiceDescriptorProto> services = new LinkedHashMap<>();
        for (FileDescriptorProto f : now.getFileList()) {
            index(f.getPackage(), f.getMessageTypeList(), f.getEnumTypeList(), messages, enums);
            f.getServiceList().forEach(s -> services.put(f.getPackage() + "." + s.getName(), s));
        }
        Map<String, DescriptorProto> oldMessages = new LinkedHashMap<>();
        Map<String, EnumDescriptorProto> oldEnums = new LinkedHashMap<>();
        List<String> breaks = new ArrayList<>();
        for (FileDescriptorProto f : released.getFileList()) {
            index(f.getPackage(), f.getMessageTypeList(), f.getEnumTypeList(), oldMessages, oldEnums);
            for (ServiceDescriptorProto s : f.getServiceList()) {
                String name = f.getPackage() + "." + s.getName();
                ServiceDescriptorProto current = services.get(name);
                if (current == null) {
                    breaks.add("service " + name + " was removed");
                    continue;
                }
                for (MethodDescriptorProto m : s.getMethodList()) {
                    MethodDescriptorProto c = current.getMethodList().stream()
                            .filter(x -> x.getName().equals(m.getName())).findFirst().orElse(null);
                    if (c == null) {
                        breaks.add("method " + name + "/" + m.getName() + " was removed");
                    } else if (!c.getInputType().equals(m.getInputType()) || !c.getOutputType().equals(m.getOutputType())
                            || c.getClientStreaming() != m.getClientStreaming()
                            || c.getServerStreaming() != m.getServerStreaming()) {
                        breaks.add("method " + name + "/" + m.getName() + " changed its request, response or streaming");
                    }
                }
            }
        }
        oldMessages.forEach((name, old) -> {
            DescriptorProto current = messages.get(name);
            if (current == null) {
                breaks.add("message " + name + " was removed");
                return;
            }
            for (FieldDescriptorProto f : old.getFieldList()) {
                FieldDescriptorProto c = current.getFieldList().stream().filter(x -> x.getNumber() == f.getNumber())
                        .findFirst().orElse(null);
                String where = name + " field " + f.getNumber();
                if (c == null) {
                    breaks.add(where + " (" + f.getName() + ") was removed");
                } else if (!c.getName().equals(f.getName())) {
                    breaks.add(where + " was named " + f.getName() + ", is " + c.getName()
                            + " (JSON and text clients break)");
                } else if (c.getType() != f.getType() || !c.getTypeName().equals(f.getTypeName())
                        || c.getLabel() != f.getLabel() || c.getProto3Optional() != f.getProto3Optional()
                        || c.hasOneofIndex() != f.hasOneofIndex()) {
                    breaks.add(where + " (" + f.getName() + ") changed its type, cardinality, presence or oneof");
                }
            }
        });
        oldEnums.forEach((name, old) -> {
            EnumDescriptorProto current = enums.get(name);
            if (current == null) {
                breaks.add("enum " + name + " was removed");
                return;
            }
            for (EnumValueDescriptorProto v : old.getValueList()) {
                if (current.getValueList().stream().noneMatch(x -> x.getNumber() == v.getNumber()
                        && x.getName().equals(v.getName()))) {
                    breaks.add("enum " + name + " value " + v.getName() + " = " + v.getNumber() + " was changed");
                }
            }
        });
        return breaks;
    }

    private static void index(String prefix, List<DescriptorProto> types, List<EnumDescriptorProto> enumTypes,
                              Map<String, DescriptorProto> messages, Map<String, EnumDescriptorProto> enums) {
        for (DescriptorProto m : types) {
            String name = prefix + "." + m.getName();
            messages.put(name, m);
            index(name, m.getNestedTypeList(), m.getEnumTypeList(), messages, enums);
        }
        enumTypes.forEach(e -> enums.put(prefix + "." + e.getName(), e));
    }
}
