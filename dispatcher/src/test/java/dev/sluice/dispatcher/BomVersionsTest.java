package dev.sluice.dispatcher;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import javax.xml.parsers.DocumentBuilderFactory;
import javax.xml.xpath.XPathFactory;
import org.junit.jupiter.api.Test;
import org.w3c.dom.Document;

/**
 * sluice-bom (dispatcher/bom/pom.xml) is not a child of the build's parent, so it names its versions itself: they
 * must be the ones the library is built and tested with (the root pom), or a consumer importing the BOM gets a
 * protobuf or Vert.x the library never ran on.
 */
class BomVersionsTest {

  private static Document pom(String path) throws Exception {
    return DocumentBuilderFactory.newInstance().newDocumentBuilder().parse(Path.of(path).toFile());
  }

  private static String text(Document pom, String xpath) throws Exception {
    return XPathFactory.newInstance().newXPath().evaluate(xpath, pom).strip();
  }

  @Test
  void theBomsVersionsAreTheBuilds() throws Exception {
    Document root = pom("../pom.xml");
    Document bom = pom("bom/pom.xml");
    assertThat(text(bom, "/project/properties/vertx.version")).as("vertx.version")
        .isNotEmpty().isEqualTo(text(root, "/project/properties/vertx.version"));
    assertThat(text(bom, "/project/properties/protobuf.version")).as("protobuf.version")
        .isNotEmpty().isEqualTo(text(root, "/project/properties/protobuf.version"));
    assertThat(text(bom, "/project/properties/slf4j.version")).as("slf4j-api")
        .isNotEmpty().isEqualTo(text(root,
            "/project/dependencyManagement/dependencies/dependency[artifactId='slf4j-api']/version"));
    assertThat(text(bom, "/project/version")).as("the BOM's version is the library's")
        .isEqualTo(text(root, "/project/version"));
  }
}
